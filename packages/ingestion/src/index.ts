export * from './embed-batch';
export * from './embedding-worker';
export * from './settings';
