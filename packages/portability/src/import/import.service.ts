import { agentsRepository, IdentifiedKind, IMPORT_TABLES, ImportLineError, importJobsRepository, ImportProgress, importRepository, memoryInsertRow, memoryVersionsRepository, NewMemory, type Knex } from '@ams/db';
import { toPgVector } from '@ams/embeddings';
import { buildNewMemory, insertImportedMemories, MEMORY_DEFAULTS } from '@ams/memories';
import { embeddedText, type MemoryChange } from '@ams/vocabulary';
import type { ImportRunDeps } from '../deps';
import { RECORD_TYPES, type RecordRules, type RecordType } from './record-rules';
import type { ImportOptions } from './import-port';
import type { InputLine } from './ndjson-lines';

export type { ImportOptions } from './import-port';

/** Line errors kept on the job; the count goes on past it. */
const MAX_REPORTED_ERRORS = 1_000;
/** Lines settled per transaction: their rows and the job's counters commit together. */
const IMPORT_BATCH_LINES = 200;

type Outcome = 'created' | 'updated' | 'skipped';
/** A new memory prepared and waiting to be stored with the others of its batch (one statement). */
const DEFERRED = 'deferred';
type Rec = Record<string, unknown>;
type DataType = Exclude<RecordType, 'header'>;

/** A line that cannot be imported; nothing of it was written. */
class LineError extends Error {
  constructor(
    message: string,
    readonly recordType?: RecordType,
    readonly field?: string,
  ) {
    super(message);
  }
}

const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
const asDate = (v: unknown) => (v instanceof Date ? v : undefined);

/** One parsed line of a batch: a record to apply, or the error that settles it. */
type Parsed = { line: number; type: DataType; record: Rec } | { line: number; error: LineError } | { line: number; header: true };

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
  autoExtract: boolean | null;
  /** Agents named by memory records, resolved once per run. */
  private readonly agentsByName = new Map<string, string>();
  /** Ids of the current batch the account already held when the batch began (skip mode: skipped without a write). */
  private present = new Set<string>();
  /** New memories of the current batch, prepared, stored together by flushMemories. */
  pending: Array<{ line: number; memory: NewMemory & { id: string } }> = [];
  /** Memories this run stored or overwrote: only their history is imported (a skipped memory keeps its own). */
  written = new Set<string>();
  /** Ids of the current batch looked up when it began (present or not). */
  private checked = new Set<string>();

  constructor(
    readonly deps: ImportRunDeps,
    readonly accountId: string,
    readonly overwrite: boolean,
    readonly q: ImportOptions,
  ) {
    this.autoExtract = q.auto_extract_entities ?? null;
  }

  /** An export's header: its memories' entities follow as entity and entity_link records. */
  sawHeader(): void {
    if (this.q.auto_extract_entities === undefined) this.autoExtract = false;
  }

  /** An exported id as this account's: mapped by this import, or already here under that id. */
  async ref(db: Knex, kind: IdentifiedKind, id: unknown): Promise<string | undefined> {
    if (typeof id !== 'string') return undefined;
    return this.ids[kind].get(id) ?? (await importRepository.findById(db, kind, this.accountId, id))?.id;
  }

  async requiredRef(db: Knex, kind: IdentifiedKind, id: unknown, field: string): Promise<string> {
    const found = await this.ref(db, kind, id);
    if (!found) throw new LineError(`${field}: ${kind} ${String(id)} is neither in this import nor in the account`, undefined, field);
    return found;
  }

  /**
   * Whether applying the record may write before it can fail: then it runs behind a savepoint. A new
   * memory whose agent is known writes nothing until its batch's memories are stored together.
   */
  needsSavepoint(type: DataType, r: Rec): boolean {
    if (type !== 'memory') return true;
    const agentKnown = (typeof r.agent_id === 'string' && this.ids.agent.has(r.agent_id)) || (typeof r.agent === 'string' && this.agentsByName.has(r.agent));
    return this.overwrite || !agentKnown;
  }

  private isPresent(kind: IdentifiedKind, r: Rec): boolean {
    return this.present.has(`${kind}:${String(r.id)}`);
  }

  async taken(db: Knex, kind: IdentifiedKind, r: Rec): Promise<{ id: string } | undefined> {
    const id = r.id as string;
    if (this.isPresent(kind, r)) return { id };
    const mapped = this.ids[kind].get(id);
    if (mapped) return { id: mapped };
    // A memory of this batch waiting to be stored holds its id and client_id already.
    const waiting = kind === 'memory' ? this.pending.find((m) => m.memory.id === id || (r.client_id && m.memory.clientId === r.client_id)) : undefined;
    if (waiting) return { id: waiting.memory.id };
    const byId = this.checked.has(`${kind}:${id}`) ? undefined : await importRepository.findById(db, kind, this.accountId, id);
    return byId ?? (await importRepository.findByNaturalKey(db, kind, this.accountId, r as Record<string, string>));
  }

  /** The text to embed for a record lacking a vector of the current model; undefined when it has one. */
  textToEmbed(type: DataType, r: Rec): string | undefined {
    const text =
      type === 'memory' ? embeddedText('memories', r as { content: string })
      : type === 'decision' ? embeddedText('decisions', r as { title: string; rationale: string })
      : type === 'pattern' ? embeddedText('patterns', r as { title: string; description: string })
      : undefined;
    if (text === undefined) return undefined;
    const given = r.embedding as number[] | null | undefined;
    const { embedder } = this.deps;
    return given && r.embedding_model === embedder.model && given.length === embedder.dimensions ? undefined : text;
  }

  /**
   * The vectors a batch needs, in one model call, before its transaction opens: only for records
   * that will be written (a record already here is not embedded unless it is to be overwritten).
   */
  async vectorsFor(batch: Parsed[]): Promise<Map<number, string>> {
    const knex = this.deps.db;
    const records = batch.flatMap((p) => ('record' in p && Object.hasOwn(IMPORT_TABLES, p.type) ? [p] : []));
    this.present = new Set();
    this.checked = new Set();
    for (const kind of new Set(records.map((p) => p.type as IdentifiedKind))) {
      const ids = records.filter((p) => p.type === kind).map((p) => p.record.id as string);
      for (const id of ids) this.checked.add(`${kind}:${id}`);
      for (const id of await importRepository.existingIds(knex, kind, this.accountId, ids)) this.present.add(`${kind}:${id}`);
    }
    const wanted: Array<{ line: number; text: string }> = [];
    for (const p of records) {
      const text = this.textToEmbed(p.type, p.record);
      if (text === undefined) continue;
      if (!this.overwrite && (this.isPresent(p.type as IdentifiedKind, p.record) || (await this.taken(knex, p.type as IdentifiedKind, p.record)))) continue;
      wanted.push({ line: p.line, text });
    }
    const out = new Map<number, string>();
    if (wanted.length === 0) return out;
    const vectors = await this.deps.embedder.embed(wanted.map((w) => w.text));
    wanted.forEach((w, i) => out.set(w.line, toPgVector(vectors[i]!)));
    return out;
  }

  /** Keeps the id where it is free; maps onto the row already holding the id or the natural key otherwise. */
  async upsert(db: Knex, kind: IdentifiedKind, r: Rec, columns: Rec): Promise<{ id: string; outcome: Outcome }> {
    const taken = await this.taken(db, kind, r);
    if (!taken) {
      await importRepository.insert(db, kind, this.accountId, { id: r.id as string, ...columns });
      return { id: r.id as string, outcome: 'created' };
    }
    if (!this.overwrite) return { id: taken.id, outcome: 'skipped' };
    await importRepository.overwrite(db, kind, this.accountId, taken.id, columns);
    return { id: taken.id, outcome: 'updated' };
  }

  /** A memory record prepared as a create prepares one (classifier, defaults, tier), with what the record carries. */
  async memory(db: Knex, r: Rec, line: number, vector: string | undefined): Promise<{ id: string; outcome: Outcome } | typeof DEFERRED> {
    const taken = await this.taken(db, 'memory', r);
    if (taken && !this.overwrite) return { id: taken.id, outcome: 'skipped' };
    let agentId = await this.ref(db, 'agent', r.agent_id);
    if (!agentId && typeof r.agent === 'string') {
      agentId = this.agentsByName.get(r.agent) ?? (await agentsRepository.ensureByName(db, this.accountId, r.agent)).id;
      this.agentsByName.set(r.agent, agentId);
    }
    if (!agentId) throw new LineError(`agent_id: agent ${String(r.agent_id)} is neither in this import nor in the account, and the record names no agent`, 'memory', 'agent_id');
    const given = { ...MEMORY_DEFAULTS, ...r } as Rec;
    const prepared = buildNewMemory(
      { accountId: this.accountId, agentId },
      {
        content: r.content as string,
        metadata: (r.metadata as Rec | undefined) ?? {},
        memory_type: r.memory_type as NewMemory['memoryType'] | undefined,
        visibility: given.visibility as NewMemory['visibility'],
        importance: given.importance as number,
        tier: r.tier as NewMemory['tier'] | undefined,
      },
      {
        sessionId: (await this.ref(db, 'session', r.session_id)) ?? null,
        projectId: (await this.ref(db, 'project', r.project_id)) ?? null,
        clientId: (r.client_id as string | null | undefined) ?? null,
      },
    );
    const memory: NewMemory & { id: string } = {
      ...prepared,
      id: r.id as string,
      tierExplicit: (r.tier_explicit as boolean | undefined) ?? prepared.tierExplicit,
      embedding: vector ?? toPgVector(r.embedding as number[]),
      embeddingModel: this.deps.embedder.model,
      embeddingStatus: 'ready',
      createdAt: asDate(r.created_at),
      updatedAt: asDate(r.updated_at),
      archived: r.archived as boolean | undefined,
      // An import carries its own expiry (none: none, not the agent's default) and version count.
      expiresAt: asDate(r.expires_at) ?? null,
      version: r.version as number | undefined,
    };
    if (!taken) {
      this.pending.push({ line, memory });
      return DEFERRED;
    }
    const { id: _id, account_id: _account, ...columns } = memoryInsertRow(memory);
    await importRepository.overwrite(db, 'memory', this.accountId, taken.id, { ...columns, metadata: json(columns.metadata), embedding_error: null });
    this.written.add(taken.id);
    return { id: taken.id, outcome: 'updated' };
  }

  /** One validated record, in the caller's transaction. */
  async apply(db: Knex, type: DataType, r: Rec, line: number, vector: string | undefined): Promise<Outcome | typeof DEFERRED> {
    const times = { created_at: r.created_at, updated_at: r.updated_at };
    const given = r.embedding as number[] | null | undefined;
    const embedding = vector !== undefined ? { embedding: vector, embedding_model: this.deps.embedder.model } : given ? { embedding: toPgVector(given), embedding_model: this.deps.embedder.model } : {};
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
        const result = await this.memory(db, r, line, vector);
        return result === DEFERRED ? result : done('memory', result);
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
      case 'memory_version': {
        const memoryId = await this.requiredRef(db, 'memory', r.memory_id, 'memory_id');
        if (!this.written.has(memoryId)) return 'skipped';
        // Replaces what the import's own insert recorded under the same number (the memory's current version).
        await memoryVersionsRepository.upsertMany(db, [
          {
            account_id: this.accountId,
            memory_id: memoryId,
            version: r.version as number,
            change: r.change as MemoryChange,
            changed_fields: r.changed_fields as string[],
            before: r.before as Record<string, unknown>,
            state: r.state as Record<string, unknown>,
            actor_key_id: (r.actor_key_id as string | null | undefined) ?? null,
            actor_agent_id: (await this.ref(db, 'agent', r.actor_agent_id)) ?? null,
            created_at: (r.created_at as string | undefined) ?? new Date(),
          },
        ]);
        return 'created';
      }
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
  }
}

/** A line as a record of a known type, checked as a create checks its body (types, lengths, dates, NUL, surrogates). */
export function parseLine(input: InputLine, rules: RecordRules): Parsed {
  const fail = (message: string, type?: RecordType, field?: string) => ({ line: input.line, error: new LineError(message, type, field) });
  if (input.tooLong) return fail('line is longer than the limit of 2 MiB');
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.text);
  } catch (err) {
    return fail(`not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return fail('a record must be a JSON object');
  const type = (parsed as Rec).type;
  if (typeof type !== 'string') return fail('type: required, a string naming the record type', undefined, 'type');
  const unsafe = rules.unsafeText(parsed);
  const known = (RECORD_TYPES as readonly string[]).includes(type);
  if (unsafe.length > 0) return fail(unsafe.map((p) => p.message).join('; '), known ? (type as RecordType) : undefined, unsafe[0]!.field);
  if (!known) return fail(`type: unknown record type "${type}"; one of ${RECORD_TYPES.join(', ')}`, undefined, 'type');
  const checked = rules.check(type as RecordType, parsed);
  if ('problems' in checked) {
    return fail(checked.problems.map((p) => `${p.field}: ${p.message}`).join('; '), type as RecordType, checked.problems[0]!.field);
  }
  if (type === 'header') return { line: input.line, header: true };
  return { line: input.line, type: type as DataType, record: checked.value };
}

/** A database refusal of one line, said plainly (never the statement): the constraint or column names which rule. */
function describe(err: unknown): { message: string; field?: string } {
  const e = err as { code?: string; constraint?: string; column?: string };
  if (e.code === '23505') return { message: `conflicts with an existing record (${e.constraint ?? 'unique constraint'})` };
  if (e.code === '23503') return { message: `references a record that does not exist (${e.constraint ?? 'foreign key'})` };
  if (e.code === '23514') return { message: `a value is out of range (${e.constraint ?? 'check constraint'})` };
  if (e.column) return { field: e.column, message: `${e.column}: a value the database cannot store` };
  return { message: 'a value the database cannot store' };
}

/** A refusal of the line's data by the database (SQLSTATE classes 22 and 23); anything else is ours. */
const isDataError = (err: unknown) => /^2[23]/.test(String((err as { code?: string }).code));

const emptyProgress = (): ImportProgress => ({ lines: 0, read: 0, stored: 0, skipped: 0, failed: 0, reembedded: 0, counts: {}, errorCount: 0, errors: [] });

// eslint-disable-next-line no-control-regex -- NUL is exactly what this replaces
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** A message may quote the line (a JSON parser's does): what jsonb cannot hold becomes U+FFFD. */
const storable = (s: string) => s.replace(UNSTORABLE, '\ufffd');

class Tally {
  constructor(readonly p: ImportProgress) {}
  error(e: ImportLineError) {
    this.p.errorCount++;
    if (this.p.errors.length < MAX_REPORTED_ERRORS) this.p.errors.push({ ...e, message: storable(e.message), ...(e.field ? { field: storable(e.field) } : {}) });
  }
  outcome(type: DataType | undefined, outcome: Outcome | 'failed') {
    if (type) (this.p.counts[type] ??= { created: 0, updated: 0, skipped: 0, failed: 0 })[outcome]++;
    if (outcome === 'failed') this.p.failed++;
    else if (outcome === 'skipped') this.p.skipped++;
    else this.p.stored++;
  }
  failLine(line: number, err: LineError | { message: string; field?: string }, type?: RecordType) {
    const t = (err instanceof LineError ? err.recordType : undefined) ?? type;
    this.outcome(t === 'header' ? undefined : t, 'failed');
    this.error({ line, ...(t ? { type: t } : {}), ...(err.field ? { field: err.field } : {}), message: err.message });
  }
}

export interface ImportJobRef {
  accountId: string;
  jobId: string;
  /** Aborted: stop after the batch being written (the process is stopping). */
  signal?: AbortSignal;
}

/**
 * Imports an export stream into a job's account in batches of IMPORT_BATCH_LINES lines: each batch's
 * records and the job's counters commit in one transaction, each record behind its own savepoint,
 * so a bad line is reported with its number (and field) and changes nothing, and whatever the job
 * says was stored is exactly what is stored. Ids are kept where free; references are mapped through
 * the ids this import assigned. Returns the final progress (also saved on the job, completed).
 */
export async function runImport(deps: ImportRunDeps, job: ImportJobRef, lines: AsyncIterable<InputLine>, q: ImportOptions): Promise<ImportProgress> {
  const knex = deps.db;
  const run = new ImportRun(deps, job.accountId, q.on_conflict === 'overwrite', q);
  let settled = emptyProgress();
  let batch: Parsed[] = [];

  const commit = async (batchLines: Parsed[], lastLine: number) => {
    const vectors = await run.vectorsFor(batchLines);
    const next = structuredClone(settled);
    const tally = new Tally(next);
    await knex.transaction(async (trx) => {
      // The memories this transaction writes are recorded in their history as imported.
      await memoryVersionsRepository.setActor(trx, { change: 'import' });
      // New memories are stored together, before any other record (which may refer to them).
      const flush = async () => {
        const pending = run.pending;
        run.pending = [];
        if (pending.length === 0) return;
        const stored = (m: (typeof pending)[number]) => {
          run.ids.memory.set(m.memory.id, m.memory.id);
          run.written.add(m.memory.id);
          tally.outcome('memory', 'created');
        };
        try {
          await trx.transaction((sp) => insertImportedMemories(sp, pending.map((m) => m.memory), run.autoExtract));
          pending.forEach(stored);
        } catch (err) {
          if (!isDataError(err)) throw err;
          // One of them is refused: each on its own, to name it.
          for (const m of pending) {
            try {
              await trx.transaction((sp) => insertImportedMemories(sp, [m.memory], run.autoExtract));
              stored(m);
            } catch (one) {
              if (!isDataError(one)) throw one;
              tally.failLine(m.line, describe(one), 'memory');
            }
          }
        }
      };
      for (const p of batchLines) {
        if ('header' in p) continue;
        next.read++;
        if ('error' in p) {
          tally.failLine(p.line, p.error);
          continue;
        }
        if (p.type !== 'memory') await flush();
        try {
          const apply = (db: Knex) => run.apply(db, p.type, p.record, p.line, vectors.get(p.line));
          const outcome = run.needsSavepoint(p.type, p.record) ? await trx.transaction(apply) : await apply(trx);
          if (outcome !== DEFERRED) tally.outcome(p.type, outcome);
        } catch (err) {
          if (!(err instanceof LineError) && !isDataError(err)) throw err;
          tally.failLine(p.line, err instanceof LineError ? err : describe(err), p.type);
        }
      }
      await flush();
      next.lines = lastLine;
      next.reembedded += vectors.size;
      await importJobsRepository.saveProgress(trx, job.accountId, job.jobId, next);
    });
    settled = next;
  };

  let lastLine = 0;
  for await (const input of lines) {
    const parsed = parseLine(input, deps.rules);
    if ('header' in parsed) run.sawHeader();
    batch.push(parsed);
    lastLine = input.line;
    if (batch.length >= IMPORT_BATCH_LINES) {
      await commit(batch, lastLine);
      batch = [];
      if (job.signal?.aborted) throw job.signal.reason;
    }
  }
  if (batch.length > 0) await commit(batch, lastLine);

  // The last step, with the job's completion: decisions superseded by ones that came later.
  const final = structuredClone(settled);
  const tally = new Tally(final);
  await knex.transaction(async (trx) => {
    for (const s of run.supersede) {
      const target = await run.ref(trx, 'decision', s.ref);
      if (target) await importRepository.setSupersededBy(trx, job.accountId, s.id, target);
      else tally.error({ line: s.line, type: 'decision', field: 'superseded_by', message: `superseded_by: decision ${s.ref} is neither in this import nor in the account` });
    }
    await importJobsRepository.finish(trx, job.accountId, job.jobId, 'completed', null, final);
  });
  return final;
}
