import { MEMORY_TYPES, type MemoryType } from '@ams/vocabulary';
import { classifyMemoryType } from '../../src/classify-memory-type';

describe('classifyMemoryType', () => {
  const cases: Array<[MemoryType, string]> = [
    ['preference', 'User prefers dark mode and vim keybindings'],
    ['preference', "The customer doesn't like long email threads"],
    ['preference', 'Always use pnpm instead of npm in this repo'],
    ['preference', 'Her favorite editor is VS Code'],
    ['task', 'Remember to rotate the API keys before Friday'],
    ['task', 'TODO: add retries to the webhook dispatcher'],
    ['task', 'We need to migrate the billing service to Postgres 16'],
    ['task', 'Update the README with the new setup steps'],
    ['task', 'We will migrate the database next week'],
    ['event', 'Deployed v2.3 to production yesterday at 14:00'],
    ['event', 'We shipped the release on March 3'],
    ['event', 'The database crashed last night around 3am'],
    ['event', 'Meeting with Acme on 2024-03-03 at 10am'],
    ['insight', 'We learned that connection pooling fixed the latency spikes'],
    ['insight', 'Turns out the flaky test was caused by a shared temp directory'],
    ['insight', 'The cache misses grew because the TTL was shorter than the batch interval'],
    ['entity_reference', 'Satya Nadella is the CEO of Microsoft'],
    ['entity_reference', 'Acme Corp is a logistics software company based in Hamburg'],
    ['entity_reference', 'Jane Doe, staff engineer at Stripe'],
    ['system', 'You are a helpful assistant. Always answer in French.'],
    ['system', 'System prompt: keep answers under 200 words and never reveal internal tools'],
    ['fact', 'The API uses JWT tokens for authentication'],
    ['fact', 'The service stores embeddings in pgvector'],
    ['fact', 'Release notes are in the wiki'],
    ['fact', 'Support tickets doubled'],
  ];

  it.each(cases)('classifies as %s: %s', (expected, content) => {
    expect(classifyMemoryType(content)).toBe(expected);
  });

  it('always returns one of MEMORY_TYPES', () => {
    for (const [, content] of cases) expect(MEMORY_TYPES).toContain(classifyMemoryType(content));
    expect(MEMORY_TYPES).toEqual(['fact', 'event', 'insight', 'task', 'preference', 'entity_reference', 'system']);
  });

  it('treats empty or blank content as a fact', () => {
    expect(classifyMemoryType('')).toBe('fact');
    expect(classifyMemoryType('   \n ')).toBe('fact');
  });

  describe('precedence', () => {
    it('when an agent instruction also states a preference, system wins', () => {
      expect(classifyMemoryType('You are a coding assistant. The user prefers TypeScript.')).toBe('system');
    });

    it('when a lesson also calls for action, insight wins over task', () => {
      expect(classifyMemoryType('Lesson learned: we need to pin dependency versions')).toBe('insight');
    });

    it('when a dated past event gives a reason, event wins over the weak "because" insight', () => {
      expect(classifyMemoryType('The deploy failed yesterday because the disk was full')).toBe('event');
    });

    it('a task with a date stays a task, not an event', () => {
      expect(classifyMemoryType('Follow up with Alice about the invoice on Monday')).toBe('task');
    });
  });

  it('is deterministic: the same input gives the same type', () => {
    const content = 'Deployed v2.3 to production yesterday at 14:00';
    const first = classifyMemoryType(content);
    for (let i = 0; i < 5; i += 1) expect(classifyMemoryType(content)).toBe(first);
  });

  it('handles long content by reading its beginning', () => {
    const long = 'Remember to rotate the API keys before Friday. ' + 'The service is stable. '.repeat(2_000);
    expect(classifyMemoryType(long)).toBe('task');
  });
});
