import { extractiveSummary, SUMMARY_LINE_MAX_CHARS, type SummaryItem } from '../../src/summarize';

const at = (iso: string): Date => new Date(iso);

const SESSION: SummaryItem[] = [
  {
    content: 'Deployed the billing service to production. The deploy took 12 minutes.',
    createdAt: at('2024-05-01T10:00:00Z'),
    score: 0.7,
  },
  {
    content: 'User prefers short status updates in Slack.',
    createdAt: at('2024-05-01T09:00:00Z'),
    score: 0.4,
  },
  {
    content: 'Postgres latency spiked after the billing deploy. Connection pooling fixed the latency.',
    createdAt: at('2024-05-01T11:00:00Z'),
    score: 0.9,
  },
  {
    content: 'Remember to rotate the billing API keys before Friday.',
    createdAt: at('2024-05-01T08:00:00Z'),
    score: 0.2,
  },
];

describe('extractiveSummary', () => {
  it('returns "" for no items', () => {
    expect(extractiveSummary([])).toBe('');
  });

  it('takes the top-scoring items and lists them as bullets in time order', () => {
    const summary = extractiveSummary(SESSION, 2);
    const lines = summary.split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.startsWith('- ')).toBe(true);
    // Items scored 0.9 and 0.7 are chosen; the 10:00 one comes before the 11:00 one.
    expect(lines[0]).toContain('billing service');
    expect(lines[1]).toContain('Postgres latency');
  });

  it('covers every item before taking a second sentence from any, up to maxSentences', () => {
    const summary = extractiveSummary(SESSION, 5);
    const lines = summary.split('\n');
    expect(lines).toHaveLength(5);
    // Time order: 08:00, 09:00, 10:00, 11:00 (the fifth line is the top item's second sentence).
    expect(lines[0]).toContain('rotate the billing API keys');
    expect(lines[1]).toContain('short status updates');
    expect(lines[2]).toContain('billing service');
    expect(lines[3]).toContain('latency');
    expect(lines[4]).toContain('latency');
  });

  it('skips duplicate sentences and stops when sentences run out', () => {
    const items: SummaryItem[] = [
      { content: 'Redis is the cache.', createdAt: at('2024-01-02T00:00:00Z'), score: 1 },
      { content: 'redis is the cache.', createdAt: at('2024-01-01T00:00:00Z'), score: 0.5 },
    ];
    expect(extractiveSummary(items, 5)).toBe('- Redis is the cache.');
  });

  it('keeps each bullet on one line and within the line limit', () => {
    const long = `${'word '.repeat(300)}end.`;
    const summary = extractiveSummary([{ content: `First line\nstill first. ${long}`, createdAt: at('2024-01-01'), score: 1 }], 2);
    for (const line of summary.split('\n')) expect(line.length).toBeLessThanOrEqual(SUMMARY_LINE_MAX_CHARS + 2);
  });

  it('is deterministic', () => {
    expect(extractiveSummary(SESSION, 3)).toBe(extractiveSummary([...SESSION].reverse(), 3));
  });
});
