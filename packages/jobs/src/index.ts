export * from './queues';
export * from './job-queue';
export * from './slots';
export * from './lease-loop';
