export * from './config';
export * from './errors';
export * from './logger';
export * from './time';
export { VERSION } from './version';
export * from './service-process';
export * from './async';
export * from './secret-box';
export * from './ids';
