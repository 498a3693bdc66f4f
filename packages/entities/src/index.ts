// The entities memories mention: their records, their links to memories, and the graph those links make.
export * from './deps';
export * from './entities.service';
export * from './entity-graph.service';
