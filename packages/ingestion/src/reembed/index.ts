export * from './model-loader';
export * from './follow-active-model';
export * from './reembed-runner';
