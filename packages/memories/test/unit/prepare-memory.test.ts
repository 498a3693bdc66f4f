import { MEMORY_DEFAULTS } from '@ams/vocabulary';
import { buildNewMemory } from '../../src/prepare-memory';
import { tierForImportance } from '../../src/tiering';

const owner = { accountId: 'acct', agentId: 'agent' };
const nowhere = { sessionId: null, projectId: null };

describe('buildNewMemory: the one preparation of every create', () => {
  it('tiers by importance when no tier is given', () => {
    const m = buildNewMemory(owner, { content: 'We decided to use PostgreSQL', metadata: {}, visibility: 'private', importance: 0.9 }, nowhere);
    expect(m).toMatchObject({ accountId: 'acct', agentId: 'agent', tier: 'hot', tierExplicit: false, sessionId: null, projectId: null });
  });

  // Texts whose class differs from the default (fact), so a create that skipped classification fails here.
  it.each([
    ['preference', 'User prefers dark mode and vim keybindings'],
    ['task', 'TODO: add retries to the webhook dispatcher'],
    ['event', 'Deployed v2.3 to production yesterday at 14:00'],
    ['insight', 'Turns out the flaky test was caused by a shared temp directory'],
    ['system', 'You are a helpful assistant. Always answer in French.'],
    ['fact', 'The service stores embeddings in pgvector'],
  ])('classifies the type when none is given: %s for %s', (memoryType, content) => {
    const m = buildNewMemory(owner, { content, metadata: {}, visibility: 'private', importance: 0.5 }, nowhere);
    expect(m.memoryType).toBe(memoryType);
  });

  it('keeps an explicit type and tier', () => {
    const m = buildNewMemory(owner, { content: 'x', metadata: {}, visibility: 'confidential', importance: 0.1, tier: 'hot', memory_type: 'system' }, nowhere);
    expect(m).toMatchObject({ memoryType: 'system', tier: 'hot', tierExplicit: true, visibility: 'confidential' });
  });

  it('a batch item gets what a single create defaults to', () => {
    const item = { content: 'Deploys happen on Friday', metadata: { a: 1 } };
    const fromBatch = buildNewMemory(owner, { ...MEMORY_DEFAULTS, ...item }, { ...nowhere, clientId: 'c1' });
    const single = buildNewMemory(owner, { ...item, visibility: 'private', importance: 0.5 }, nowhere);
    expect(fromBatch).toEqual({ ...single, clientId: 'c1' });
    expect(fromBatch.tier).toBe(tierForImportance(0.5));
  });
});
