export { createMemoryClient } from './client';
export type { ClientOptions, CreateMemoryInput, ImportJob, ListMemoriesQuery, Memory, MemoryClient, MemorySummary, MemoryVersion, SearchInput, SearchResults } from './client';
export { AmsError } from './errors';
export type { paths } from './generated/schema';
