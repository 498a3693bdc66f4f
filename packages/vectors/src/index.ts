// The store's vectors as a resource: the model that made them, re-embedding them with another,
// the backlog still waiting for one, and vectors on demand for a client's own index.
export * from './deps';
export * from './reembed.service';
export * from './ingestion-status.service';
export * from './embed.service';
