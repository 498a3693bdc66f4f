export * from './knex';
export * from './migrate';
export * from './pagination';
export * from './repositories/accounts.repository';
export * from './repositories/api-keys.repository';
export * from './repositories/agents.repository';
