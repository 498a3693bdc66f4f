export * from './embedder';
export * from './vector';
export * from './lexical-embedder';
export * from './transformers-embedder';
export * from './create-embedder';
export * from './download/download-model';
export * from './download/progress';
export * from './query-cache';
