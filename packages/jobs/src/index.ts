export * from './queues';
export * from './job-queue';
