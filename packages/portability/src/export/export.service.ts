import { agentsRepository, EXPORT_KINDS, ExportCursor, ExportFilters, ExportKind, exportRepository, ExportRow, projectsRepository } from '@ams/db';
import { VERSION, isUuid } from '@ams/core';
import type { Caller, ExportDeps } from '../deps';

export interface ExportInput {
  format: 'ndjson' | 'markdown';
  /** An agent's id or name. */
  agent?: string;
  /** A project's slug. */
  project?: string;
  created_after?: Date;
  created_before?: Date;
  include_vectors: boolean;
}

/** Rows per database round trip: memory stays bounded by this, whatever the account holds. */
const EXPORT_PAGE_SIZE = 500;
const EXPORT_FORMAT = 'ams-export';
const EXPORT_FORMAT_VERSION = 1;

export type ExportRecord = { type: ExportKind | 'header' } & Record<string, unknown>;

/**
 * The account's filters, resolved. An unknown agent or project matches nothing (as every read
 * naming one does); a key bound to an agent exports only that agent's data.
 */
async function resolveFilters(deps: ExportDeps, auth: Caller, q: ExportInput): Promise<ExportFilters | undefined> {
  const db = deps.db;
  const f: ExportFilters = { accountId: auth.accountId, createdAfter: q.created_after, createdBefore: q.created_before, includeVectors: q.include_vectors };
  if (q.agent !== undefined) {
    const agent = isUuid(q.agent) ? await agentsRepository.findLive(db, auth.accountId, q.agent) : await agentsRepository.findLiveByName(db, auth.accountId, q.agent);
    if (!agent) return undefined;
    f.agentId = agent.id;
  }
  if (auth.agentId) {
    if (f.agentId && f.agentId !== auth.agentId) return undefined;
    f.agentId = auth.agentId;
  }
  if (q.project !== undefined) {
    const project = await projectsRepository.findLiveBySlug(db, auth.accountId, q.project);
    if (!project) return undefined;
    f.project = { id: project.id, slug: project.slug };
  }
  return f;
}

/** A row as a record: timestamps in ISO 8601, vectors as number arrays, the cursor columns dropped. */
function toRecord(kind: ExportKind, row: ExportRow): ExportRecord {
  const out: ExportRecord = { type: kind };
  for (const [k, v] of Object.entries(row)) {
    if (k === 'cursor_ts' || k === 'cursor_key') continue;
    if (k === 'embedding') {
      if (v !== null && v !== undefined) out.embedding = JSON.parse(String(v)) as number[];
      continue;
    }
    out[k] = v instanceof Date ? v.toISOString() : v;
  }
  return out;
}

/** Every record of one kind, page by page. */
async function* recordsOf(deps: ExportDeps, kind: ExportKind, f: ExportFilters): AsyncGenerator<ExportRecord> {
  let after: ExportCursor | undefined;
  for (;;) {
    const rows = await exportRepository.page(deps.db, kind, f, after, EXPORT_PAGE_SIZE);
    for (const row of rows) yield toRecord(kind, row);
    if (rows.length < EXPORT_PAGE_SIZE) return;
    const last = rows[rows.length - 1]!;
    after = { ts: last.cursor_ts, key: last.cursor_key };
  }
}

/**
 * The account's data as a stream of typed records: a header, then agents, projects, sessions,
 * memories, entities, entity links, decisions, patterns, adoptions and webhooks (without secrets),
 * referenced kinds before the kinds that reference them.
 */
export async function* exportRecords(deps: ExportDeps, auth: Caller, q: ExportInput, kinds: readonly ExportKind[] = EXPORT_KINDS): AsyncGenerator<ExportRecord> {
  const f = await resolveFilters(deps, auth, q);
  yield {
    type: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_FORMAT_VERSION,
    service_version: VERSION,
    exported_at: new Date().toISOString(),
    embedding_model: deps.embedder.model,
    embedding_dimensions: deps.embedder.dimensions,
    includes_vectors: q.include_vectors,
    filters: {
      agent: q.agent ?? null,
      project: q.project ?? null,
      created_after: q.created_after?.toISOString() ?? null,
      created_before: q.created_before?.toISOString() ?? null,
    },
  };
  if (!f) return;
  for (const kind of kinds) yield* recordsOf(deps, kind, f);
}
