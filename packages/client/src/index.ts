export { createMemoryClient } from './client';
export type {
  AccountLimits,
  AccountLimitsPatch,
  AccountUsage,
  ClientOptions,
  CreateMemoryInput,
  ImportJob,
  ListMemoriesQuery,
  Memory,
  MemoryClient,
  MemorySummary,
  MemoryVersion,
  RetieringRules,
  RetieringRun,
  RetieringSettings,
  SearchInput,
  SearchResults,
  TierMoves,
} from './client';
export { AmsError } from './errors';
export type { paths } from './generated/schema';
