import fs from 'node:fs';
import path from 'node:path';
import type { RepositoryEntries } from '../entry';
import { accounts } from './accounts';
import { agents } from './agents';
import { apiKeys } from './api-keys';
import { decisions } from './decisions';
import { embeddingBatches } from './embedding-batches';
import { embeddingQueue } from './embedding-queue';
import { entities, entityLinks } from './entities';
import { entityGraph } from './entity-graph';
import { exportEntries } from './export';
import { importJobs } from './import-jobs';
import { importEntries } from './import';
import { memories } from './memories';
import { memoryExpiry } from './memory-expiry';
import { memoryStatusCounts } from './memory-status-counts';
import { memoryVersions } from './memory-versions';
import { newMemories } from './new-memories';
import { oauthClients, oauthCodes, oauthGrants, oauthRequests, oauthTokens, signInAttempts } from './oauth';
import { patterns } from './patterns';
import { projectRelationships } from './project-relationships';
import { projects } from './projects';
import { embeddingState, reembed } from './reembed';
import { replication } from './replication';
import { retiering } from './retiering';
import { searchEvents } from './search-events';
import { searchHits } from './search-hits';
import { sessions } from './sessions';
import { usage } from './usage';
import { accountLimits, accountUsage } from './account-limits';
import { webhookDeliveries } from './webhook-deliveries';
import { webhooks } from './webhooks';

/**
 * One file of packages/db/sql per repository module: its repositories' calls, and where the SQL of
 * each other function it exports (a fragment others put in their statements) shows.
 */
export interface SqlFile {
  name: string;
  repositories: RepositoryEntries[];
  helpers?: Record<string, string>;
}

export const FILES: SqlFile[] = [
  { name: 'account-limits', repositories: [accountLimits] },
  { name: 'account-usage', repositories: [accountUsage] },
  { name: 'accounts', repositories: [accounts] },
  { name: 'agents', repositories: [agents], helpers: { activityIsStale: "the condition in agentsRepository.markActive and newMemoriesRepository.insertWithRecords' active step" } },
  { name: 'api-keys', repositories: [apiKeys] },
  { name: 'decisions', repositories: [decisions] },
  { name: 'embedding-batches', repositories: [embeddingBatches] },
  { name: 'embedding-queue', repositories: [embeddingQueue], helpers: { byAccount: 'groups rows by account in JavaScript: no SQL' } },
  { name: 'entities', repositories: [entities, entityLinks] },
  { name: 'entity-graph', repositories: [entityGraph] },
  { name: 'export', repositories: [exportEntries] },
  { name: 'import-jobs', repositories: [importJobs] },
  { name: 'import', repositories: [importEntries] },
  { name: 'oauth', repositories: [oauthClients, oauthRequests, oauthGrants, oauthCodes, oauthTokens, signInAttempts] },
  {
    name: 'memories',
    repositories: [memories],
    helpers: {
      agentDefaultExpiry: "agent_default_expiry(…) in memoriesRepository.insertMany's rows",
      keywordSet: 'the filters of keywordCandidates and searchHitsRepository.keyword (search-hits.sql)',
      memoryInsertRow: 'the row of insertMany and newMemoriesRepository.insertWithRecords (new-memories.sql)',
      searchableWhere: 'the filters of every search, as text (keywordSet, semanticSet and searchHitsRepository.nearest; the valid_from / valid_until conditions: see semanticCandidates with as_of)',
      semanticSet: 'the filters of semanticCandidates and searchHitsRepository.nearest (search-hits.sql)',
    },
  },
  { name: 'memory-expiry', repositories: [memoryExpiry] },
  { name: 'memory-status-counts', repositories: [memoryStatusCounts] },
  { name: 'memory-versions', repositories: [memoryVersions] },
  { name: 'new-memories', repositories: [newMemories] },
  { name: 'patterns', repositories: [patterns] },
  { name: 'project-relationships', repositories: [projectRelationships] },
  { name: 'projects', repositories: [projects] },
  { name: 'reembed', repositories: [embeddingState, reembed] },
  { name: 'replication', repositories: [replication] },
  { name: 'retiering', repositories: [retiering] },
  { name: 'search-events', repositories: [searchEvents] },
  { name: 'search-hits', repositories: [searchHits] },
  { name: 'sessions', repositories: [sessions] },
  { name: 'usage', repositories: [usage] },
  {
    name: 'webhook-deliveries',
    repositories: [webhookDeliveries],
    helpers: {
      oneShotInsert: 'the INSERT of recordOneShots (and of newMemoriesRepository.insertWithRecords)',
      subscribedInsert: 'the INSERT of recordEvents (and of newMemoriesRepository.insertWithRecords)',
    },
  },
  { name: 'webhooks', repositories: [webhooks] },
];

const REPOSITORIES = path.join(__dirname, '..', '..', '..', 'src', 'repositories');

/**
 * Every exported function of packages/db/src/repositories/*.repository.ts with no entry here (as
 * `file: name`): a repository object's method without calls, or another exported function that is
 * neither a repository nor listed among its file's helpers. Empty when all are covered.
 */
export async function uncovered(files: SqlFile[] = FILES): Promise<string[]> {
  const missing: string[] = [];
  const modules = fs.readdirSync(REPOSITORIES).filter((f) => f.endsWith('.repository.ts')).sort();
  for (const module of modules) {
    const name = module.replace(/\.repository\.ts$/, '');
    const file = files.find((f) => f.name === name);
    const exports = (await import(path.join(REPOSITORIES, module))) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(exports)) {
      if (typeof value === 'function') {
        if (!file?.helpers?.[exported]) missing.push(`${module}: ${exported}`);
        continue;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      const methods = Object.entries(value).filter(([, v]) => typeof v === 'function').map(([m]) => m);
      if (methods.length === 0) continue;
      const repo = file?.repositories.find((r) => r.repository === value);
      for (const m of methods) if (!repo?.entries[m]?.length) missing.push(`${module}: ${exported}.${m}`);
    }
  }
  return missing;
}
