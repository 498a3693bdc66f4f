export * from './knex';
export * from './migrate';
