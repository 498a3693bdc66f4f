export * from './embed-batch';
export * from './embed-now';
export * from './embedding-queue';
export * from './embedding-worker';
export * from './settings';
export * from './throughput';
export * from './reembed';
export * from './retiering-loop';
