// What the embedding worker calls, without the rest of the domain (and its NLP libraries): a worker
// process starts in half the time importing `@ams/memories/worker` instead of `@ams/memories`.
export { completeEmbeddings,  } from './complete-embeddings';
export type { Dispatch, MemoryDeps } from './deps';
export { dispatchAfterCommit } from './events';
export { retierAccount,   } from './retiering';
