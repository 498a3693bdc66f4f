import crypto from 'node:crypto';
import { accountsRepository, createDatabase, type Database, reembedRepository, type VectorTable } from '@ams/db';
import { LexicalEmbedder } from '@ams/embeddings';
import { createDecision, createPattern, decisionText, patchDecision, patchPattern, patternText, supersedeDecision, type Caller } from '../../src';

/** The lexical model, noting every text it is asked to embed. */
class RecordingEmbedder extends LexicalEmbedder {
  readonly texts: string[] = [];
  override async embed(texts: string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return super.embed(texts);
  }
}

// Texts a join or a quoting slip would change: newlines, spaces at the ends, quotes, backslashes, non-ASCII.
const TITLE = " Use 'Postgres' \\ not MySQL ";
const BODY = 'Line one\nline two\r\n\ttabbed — ünïcödé 🚀 "quoted" E\'\\n\' ';

/**
 * A decision's or pattern's vector is made in two places: by the service when the row is written
 * (JavaScript) and by a re-embed run (SQL over every row). Both must embed the same text, or a
 * re-embedded store ranks differently from a freshly written one.
 */
describe('the text a decision or pattern embeds', () => {
  let db: Database;
  let caller: Caller;
  const embedder = new RecordingEmbedder();

  beforeAll(async () => {
    db = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 2 });
    const account = await accountsRepository.insert(db.knex, { email: `text-${crypto.randomUUID()}@example.com`, passwordHash: null });
    caller = { accountId: account!.id, agentId: null };
  });
  afterAll(() => db.close());

  /** The text a re-embed run builds in SQL for the row `id` of the caller's account. */
  async function reembedText(table: VectorTable, id: string): Promise<string> {
    const after = { table, account_id: caller.accountId, id: '00000000-0000-0000-0000-000000000000' };
    const items = await reembedRepository.nextBatch(db.knex, table, 'a-model-no-row-has', 'stage', after, 1000);
    const item = items.find((i) => i.account_id === caller.accountId && i.id === id);
    if (!item) throw new Error(`${table} ${id} is not in the re-embed batch`);
    return item.text;
  }

  /** What the service embedded while running `write`: exactly one text. */
  async function embeddedBy(write: () => Promise<unknown>): Promise<string> {
    embedder.texts.length = 0;
    await write();
    expect(embedder.texts).toHaveLength(1);
    return embedder.texts[0]!;
  }

  it('a decision: created, edited and superseded, the service embeds what the re-embed SQL selects', async () => {
    const deps = { db: db.knex, embedder };
    let id = '';
    const created = await embeddedBy(async () => {
      id = (await createDecision(deps, caller, { title: TITLE, rationale: BODY, status: 'active', tags: [], metadata: {} })).id;
    });
    expect(created).toBe(decisionText({ title: TITLE, rationale: BODY }));
    expect(await reembedText('decisions', id)).toBe(created);

    const edited = await embeddedBy(() => patchDecision(deps, caller, id, { rationale: `${BODY}\n` }));
    expect(await reembedText('decisions', id)).toBe(edited);

    let next = '';
    const superseding = await embeddedBy(async () => {
      next = (await supersedeDecision(deps, caller, id, { title: `${TITLE}2`, rationale: BODY })).id;
    });
    expect(await reembedText('decisions', next)).toBe(superseding);
  });

  it('a pattern: created and edited, the service embeds what the re-embed SQL selects', async () => {
    const deps = { db: db.knex, embedder };
    let id = '';
    const created = await embeddedBy(async () => {
      id = (await createPattern(deps, caller, { title: TITLE, description: BODY, scope: 'global', tags: [], metadata: {} })).id;
    });
    expect(created).toBe(patternText({ title: TITLE, description: BODY }));
    expect(await reembedText('patterns', id)).toBe(created);

    const edited = await embeddedBy(() => patchPattern(deps, caller, id, { title: 'Renamed' }));
    expect(await reembedText('patterns', id)).toBe(edited);
  });
});
