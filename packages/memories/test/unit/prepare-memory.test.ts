import { BATCH_ITEM_DEFAULTS, buildNewMemory } from '../../src/prepare-memory';
import { tierForImportance } from '../../src/tiering';

const owner = { accountId: 'acct', agentId: 'agent' };
const nowhere = { sessionId: null, projectId: null };

describe('buildNewMemory: the one preparation of every create', () => {
  it('classifies the type and tiers by importance when neither is given', () => {
    const m = buildNewMemory(owner, { content: 'We decided to use PostgreSQL', metadata: {}, visibility: 'private', importance: 0.9 }, nowhere);
    expect(m).toMatchObject({ accountId: 'acct', agentId: 'agent', tier: 'hot', tierExplicit: false, sessionId: null, projectId: null });
    expect(typeof m.memoryType).toBe('string');
  });

  it('keeps an explicit type and tier', () => {
    const m = buildNewMemory(owner, { content: 'x', metadata: {}, visibility: 'confidential', importance: 0.1, tier: 'hot', memory_type: 'system' }, nowhere);
    expect(m).toMatchObject({ memoryType: 'system', tier: 'hot', tierExplicit: true, visibility: 'confidential' });
  });

  it('a batch item gets what a single create defaults to', () => {
    const item = { content: 'Deploys happen on Friday', metadata: { a: 1 } };
    const fromBatch = buildNewMemory(owner, { ...BATCH_ITEM_DEFAULTS, ...item }, { ...nowhere, clientId: 'c1' });
    const single = buildNewMemory(owner, { ...item, visibility: 'private', importance: 0.5 }, nowhere);
    expect(fromBatch).toEqual({ ...single, clientId: 'c1' });
    expect(fromBatch.tier).toBe(tierForImportance(0.5));
  });
});
