import { agentsRepository, IdentifiedKind, importRepository, type Knex } from '@ams/db';
import { toPgVector } from '@ams/embeddings';
import { tierForImportance } from '@ams/memories';
import type { AppContext, AuthContext } from '../../context';
import { RECORD_SCHEMAS, RecordType } from '../../routes/import/import-records.schemas';
import { decisionText } from '../decisions.service';
import { patternText } from '../patterns.service';
import type { InputLine } from './ndjson-lines';

export interface ImportOptions {
  on_conflict: 'skip' | 'overwrite';
}

/** Line errors kept in the response; the count goes on past it. */
export const MAX_REPORTED_ERRORS = 1_000;

type Outcome = 'created' | 'updated' | 'skipped';
type Counts = Record<Outcome | 'failed', number>;
type Rec = Record<string, unknown>;

export interface ImportResult {
  object: 'import_result';
  lines: number;
  counts: Partial<Record<Exclude<RecordType, 'header'>, Counts>>;
  /** Memories, decisions and patterns embedded here because they lacked a vector of the current model. */
  reembedded: number;
  error_count: number;
  errors: { line: number; type?: string; message: string }[];
}

/** A line that cannot be imported; nothing of it was written. */
class LineError extends Error {
  constructor(
    message: string,
    readonly recordType?: RecordType,
  ) {
    super(message);
  }
}

const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));

/** Everything one import run remembers: how exported ids map to this account's ids. */
class ImportRun {
  readonly ids: Record<IdentifiedKind, Map<string, string>> = {
    agent: new Map(),
    project: new Map(),
    session: new Map(),
    memory: new Map(),
    entity: new Map(),
    decision: new Map(),
    pattern: new Map(),
    webhook: new Map(),
  };
  /** superseded_by is set last: the superseding decision usually comes later in the stream. */
  readonly supersede: { line: number; id: string; ref: string }[] = [];
  reembedded = 0;

  constructor(
    readonly ctx: AppContext,
    readonly accountId: string,
    readonly overwrite: boolean,
  ) {}

  /** An exported id as this account's: mapped by this import, or already here under that id. */
  async ref(db: Knex, kind: IdentifiedKind, id: unknown): Promise<string | undefined> {
    if (typeof id !== 'string') return undefined;
    return this.ids[kind].get(id) ?? (await importRepository.findById(db, kind, this.accountId, id))?.id;
  }

  async requiredRef(db: Knex, kind: IdentifiedKind, id: unknown, field: string): Promise<string> {
    const found = await this.ref(db, kind, id);
    if (!found) throw new LineError(`${field}: ${kind} ${String(id)} is neither in this import nor in the account`);
    return found;
  }

  /** The record's vector when it is of the current model, else a fresh one (re-embedded). */
  async vectorFor(r: Rec, text: string): Promise<string> {
    const { embedder } = this.ctx;
    const given = r.embedding as number[] | null | undefined;
    if (given && r.embedding_model === embedder.model && given.length === embedder.dimensions) return toPgVector(given);
    this.reembedded++;
    const [v] = await embedder.embed([text]);
    return toPgVector(v!);
  }

  /** Keeps the id where it is free; maps onto the row already holding the id or the natural key otherwise. */
  async upsert(db: Knex, kind: IdentifiedKind, r: Rec, columns: Rec): Promise<{ id: string; outcome: Outcome }> {
    const id = r.id as string;
    const taken = (await importRepository.findById(db, kind, this.accountId, id)) ?? (await importRepository.findByNaturalKey(db, kind, this.accountId, r as Record<string, string>));
    if (!taken) {
      await importRepository.insert(db, kind, this.accountId, { id, ...columns });
      return { id, outcome: 'created' };
    }
    if (!this.overwrite) return { id: taken.id, outcome: 'skipped' };
    await importRepository.overwrite(db, kind, this.accountId, taken.id, columns);
    return { id: taken.id, outcome: 'updated' };
  }

  /** One validated record, in one transaction: a failure leaves nothing behind. */
  async apply(type: Exclude<RecordType, 'header'>, r: Rec, line: number): Promise<Outcome> {
    const { knex } = this.ctx.db;
    const times = { created_at: r.created_at, updated_at: r.updated_at };
    // Model calls happen before the transaction opens.
    const vector =
      type === 'memory' ? await this.vectorFor(r, r.content as string)
      : type === 'decision' ? await this.vectorFor(r, decisionText(r as { title: string; rationale: string }))
      : type === 'pattern' ? await this.vectorFor(r, patternText(r as { title: string; description: string }))
      : undefined;
    const embedding = vector === undefined ? {} : { embedding: vector, embedding_model: this.ctx.embedder.model };
    return knex.transaction(async (db) => {
      const done = (kind: IdentifiedKind, result: { id: string; outcome: Outcome }) => {
        this.ids[kind].set(r.id as string, result.id);
        return result.outcome;
      };
      switch (type) {
        case 'agent':
          return done('agent', await this.upsert(db, 'agent', r, { name: r.name, description: r.description, config: json(r.config), metadata: json(r.metadata), last_active_at: r.last_active_at, ...times }));
        case 'project':
          return done('project', await this.upsert(db, 'project', r, { slug: r.slug, name: r.name, description: r.description, stack: json(r.stack), repo_url: r.repo_url, metadata: json(r.metadata), ...times }));
        case 'session':
          return done(
            'session',
            await this.upsert(db, 'session', r, {
              agent_id: (await this.ref(db, 'agent', r.agent_id)) ?? null,
              external_id: r.external_id,
              project: r.project,
              status: r.status,
              title: r.title,
              summary: r.summary,
              summary_generated_at: r.summary_generated_at,
              metadata: json(r.metadata),
              started_at: r.started_at,
              ended_at: r.ended_at,
              ...times,
            }),
          );
        case 'memory': {
          let agentId = await this.ref(db, 'agent', r.agent_id);
          if (!agentId && typeof r.agent === 'string') agentId = (await agentsRepository.ensureByName(db, this.accountId, r.agent)).id;
          if (!agentId) throw new LineError(`agent_id: agent ${String(r.agent_id)} is neither in this import nor in the account, and the record names no agent`);
          const importance = (r.importance as number | undefined) ?? 0.5;
          return done(
            'memory',
            await this.upsert(db, 'memory', r, {
              agent_id: agentId,
              content: r.content,
              metadata: json(r.metadata),
              memory_type: r.memory_type ?? 'fact',
              visibility: r.visibility,
              importance,
              tier: r.tier ?? tierForImportance(importance),
              tier_explicit: r.tier_explicit,
              archived: r.archived,
              session_id: (await this.ref(db, 'session', r.session_id)) ?? null,
              project_id: (await this.ref(db, 'project', r.project_id)) ?? null,
              client_id: r.client_id,
              ...embedding,
              embedding_status: 'ready',
              embedding_error: null,
              ...times,
            }),
          );
        }
        case 'entity':
          return done('entity', await this.upsert(db, 'entity', r, { name: r.name, entity_type: r.entity_type, metadata: json(r.metadata), ...times }));
        case 'entity_link': {
          const link = {
            entity_id: await this.requiredRef(db, 'entity', r.entity_id, 'entity_id'),
            memory_id: await this.requiredRef(db, 'memory', r.memory_id, 'memory_id'),
            relationship: r.relationship,
            relevance_score: r.relevance_score,
            created_at: r.created_at,
          };
          return (await importRepository.upsertEntityLink(db, this.accountId, link, this.overwrite)) ? 'created' : this.overwrite ? 'updated' : 'skipped';
        }
        case 'decision': {
          const result = await this.upsert(db, 'decision', r, {
            agent_id: (await this.ref(db, 'agent', r.agent_id)) ?? null,
            session_id: (await this.ref(db, 'session', r.session_id)) ?? null,
            project_slug: r.project_slug,
            title: r.title,
            rationale: r.rationale,
            alternatives: r.alternatives,
            status: r.status,
            tags: r.tags,
            metadata: json(r.metadata),
            ...embedding,
            ...times,
          });
          if (typeof r.superseded_by === 'string' && result.outcome !== 'skipped') this.supersede.push({ line, id: result.id, ref: r.superseded_by });
          return done('decision', result);
        }
        case 'pattern':
          return done(
            'pattern',
            await this.upsert(db, 'pattern', r, {
              title: r.title,
              description: r.description,
              scope: r.scope,
              category: r.category,
              tags: r.tags,
              example_code: r.example_code,
              source_project_id: (await this.ref(db, 'project', r.source_project_id)) ?? null,
              metadata: json(r.metadata),
              adoption_count: r.adoption_count,
              ...embedding,
              ...times,
            }),
          );
        case 'pattern_adoption': {
          const adoption = {
            pattern_id: await this.requiredRef(db, 'pattern', r.pattern_id, 'pattern_id'),
            project_id: await this.requiredRef(db, 'project', r.project_id, 'project_id'),
            created_at: r.created_at,
          };
          return (await importRepository.insertAdoption(db, this.accountId, adoption)) ? 'created' : 'skipped';
        }
        case 'webhook':
          // Secrets are never exported: a new webhook has none until one is set; an overwritten one keeps its own.
          return done('webhook', await this.upsert(db, 'webhook', r, { url: r.url, event_types: r.event_types, enabled: r.enabled, disabled_reason: r.disabled_reason, description: r.description, ...times }));
      }
    });
  }
}

function parseLine(input: InputLine): { type: RecordType; record: Rec } {
  if (input.tooLong) throw new LineError('line is longer than the limit of 2 MiB');
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.text);
  } catch (err) {
    throw new LineError(`not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new LineError('a record must be a JSON object');
  const type = (parsed as Rec).type;
  if (typeof type !== 'string') throw new LineError('type: required, a string naming the record type');
  if (!Object.hasOwn(RECORD_SCHEMAS, type)) throw new LineError(`type: unknown record type "${type}"; one of ${Object.keys(RECORD_SCHEMAS).join(', ')}`);
  const { value, error } = RECORD_SCHEMAS[type as RecordType].validate(parsed, {
    abortEarly: false,
    convert: true,
    stripUnknown: true,
    errors: { wrap: { label: false } },
  });
  if (error) throw new LineError(error.details.map((d) => `${d.path.join('.') || d.context?.key}: ${d.message}`).join('; '), type as RecordType);
  return { type: type as RecordType, record: value as Rec };
}

/** A database refusal of one line, said plainly (the constraint names which rule). */
function describe(err: unknown): string {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505') return `conflicts with an existing record (${e.constraint ?? 'unique constraint'})`;
  if (e.code === '23503') return `references a record that does not exist (${e.constraint ?? 'foreign key'})`;
  if (e.code === '23514') return `a value is out of range (${e.constraint ?? 'check constraint'})`;
  return e.message ?? String(err);
}

/**
 * Imports an export stream into the account, line by line: each line is validated and written in
 * its own transaction, so a bad line is reported with its number and changes nothing. Ids are kept
 * where free; references are mapped through the ids this import assigned.
 */
export async function importRecords(ctx: AppContext, auth: AuthContext, lines: AsyncIterable<InputLine>, q: ImportOptions): Promise<ImportResult> {
  const run = new ImportRun(ctx, auth.accountId, q.on_conflict === 'overwrite');
  const result: ImportResult = { object: 'import_result', lines: 0, counts: {}, reembedded: 0, error_count: 0, errors: [] };
  const fail = (line: number, message: string, type?: string) => {
    result.error_count++;
    if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, ...(type ? { type } : {}), message });
  };
  const count = (type: Exclude<RecordType, 'header'>, outcome: Outcome | 'failed') => {
    const c = (result.counts[type] ??= { created: 0, updated: 0, skipped: 0, failed: 0 });
    c[outcome]++;
  };
  for await (const input of lines) {
    result.lines = input.line;
    let type: RecordType | undefined;
    try {
      const parsed = parseLine(input);
      type = parsed.type;
      if (type === 'header') continue;
      count(type, await run.apply(type, parsed.record, input.line));
    } catch (err) {
      // Line errors and the database refusing the line's data (SQLSTATE classes 22, 23); anything else is ours.
      if (!(err instanceof LineError) && !/^2[23]/.test(String((err as { code?: string }).code))) throw err;
      type ??= err instanceof LineError ? err.recordType : undefined;
      if (type && type !== 'header') count(type, 'failed');
      fail(input.line, err instanceof LineError ? err.message : describe(err), type);
    }
  }
  for (const s of run.supersede) {
    const target = await run.ref(ctx.db.knex, 'decision', s.ref);
    if (target) await importRepository.setSupersededBy(ctx.db.knex, auth.accountId, s.id, target);
    else fail(s.line, `superseded_by: decision ${s.ref} is neither in this import nor in the account`, 'decision');
  }
  result.reembedded = run.reembedded;
  return result;
}
