export { createMemoryClient } from './client';
export type {
  AccountLimits,
  AccountLimitsPatch,
  AccountUsage,
  ClientOptions,
  CreateMemoryInput,
  ImportJob,
  JsonBody,
  ListMemoriesQuery,
  Memory,
  MemoryClient,
  MemorySummary,
  MemoryVersion,
  Ok,
  Query,
  RetieringRules,
  RetieringRun,
  RetieringSettings,
  SearchInput,
  SearchResults,
  TierMoves,
} from './client';
export { AmsError } from './errors';
export type { paths } from './generated/schema';
