export * from './queues';
export * from './bee-queue';
