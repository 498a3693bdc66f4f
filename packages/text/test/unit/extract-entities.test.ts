import { ENTITY_TYPES, normalizeEntityType } from '../../src/entity-types';
import {
  extractEntities,
  isEntityRich,
  mentionedEntityNames,
  normalizeEntityName,
  type ExtractedEntity,
} from '../../src/extract-entities';

const pairs = (entities: ExtractedEntity[]): Array<[string, string]> => entities.map((e) => [e.name, e.type]);

describe('extractEntities', () => {
  it('finds a person and the organization they lead', () => {
    expect(pairs(extractEntities('Satya Nadella is the CEO of Microsoft'))).toEqual([
      ['Satya Nadella', 'person'],
      ['Microsoft', 'organization'],
    ]);
  });

  it('finds technologies under their canonical names and a city as a location', () => {
    const entities = extractEntities(
      'The team migrated from MySQL to PostgreSQL and added Redis for caching in Berlin',
    );
    expect(pairs(entities)).toEqual([
      ['MySQL', 'technology'],
      ['PostgreSQL', 'technology'],
      ['Redis', 'technology'],
      ['Berlin', 'location'],
    ]);
    for (const e of entities.filter((x) => x.type === 'technology')) expect(e.confidence).toBeGreaterThanOrEqual(0.85);
  });

  it('finds people, organizations and places tagged by compromise', () => {
    expect(pairs(extractEntities('Alice Johnson from Google met Bob in Paris on March 3.'))).toEqual([
      ['Alice Johnson', 'person'],
      ['Google', 'organization'],
      ['Bob', 'person'],
      ['Paris', 'location'],
    ]);
    expect(pairs(extractEntities('Tim Cook met Klaus Meyer at Deutsche Bank in Hamburg'))).toEqual([
      ['Tim Cook', 'person'],
      ['Klaus Meyer', 'person'],
      ['Deutsche Bank', 'organization'],
      ['Hamburg', 'location'],
    ]);
  });

  it('extracts metrics: named measures, durations and percentages', () => {
    const entities = extractEntities('p99 latency dropped to 120ms after the fix, a 45% improvement');
    expect(pairs(entities)).toEqual([
      ['p99 latency', 'metric'],
      ['120ms', 'metric'],
      ['45%', 'metric'],
    ]);
    expect(pairs(extractEntities('The error rate stayed under 0.5% while throughput reached 2,000 req/s'))).toEqual([
      ['error rate', 'metric'],
      ['0.5%', 'metric'],
      ['throughput', 'metric'],
      ['2,000 req/s', 'metric'],
    ]);
  });

  it('does not mistake versions, times or quarters for metrics', () => {
    const names = extractEntities('Deployed v2.3 at 14:00 in Q3').map((e) => e.name);
    expect(names).not.toContain('2.3');
    expect(names).not.toContain('00');
    expect(names).not.toContain('Q3');
  });

  it('extracts documents: file names, README and URLs without trailing punctuation', () => {
    expect(
      pairs(extractEntities('See docs/setup.md, the README and https://example.com/guide?x=1. Also read RFC 7231.')),
    ).toEqual([
      ['docs/setup.md', 'document'],
      ['README', 'document'],
      ['https://example.com/guide?x=1', 'document'],
      ['RFC 7231', 'document'],
    ]);
  });

  it('treats "Node.js" as a technology, not a file name', () => {
    expect(pairs(extractEntities('The API runs on Node.js with quarterly-report.pdf attached'))).toEqual([
      ['Node.js', 'technology'],
      ['quarterly-report.pdf', 'document'],
    ]);
  });

  it('deduplicates case-insensitively and by alias, keeping the first position', () => {
    const entities = extractEntities('Postgres is fast. postgres scales. We love PostgreSQL and REDIS and Redis.');
    expect(pairs(entities)).toEqual([
      ['PostgreSQL', 'technology'],
      ['Redis', 'technology'],
    ]);
  });

  it('normalises possessives and punctuation around names', () => {
    const names = extractEntities("Microsoft's CEO visited London's office.").map((e) => e.name);
    expect(names).toEqual(['Microsoft', 'London']);
  });

  it('ignores role acronyms compromise tags as organizations', () => {
    expect(extractEntities('Remember to rotate the API keys before Friday')).toEqual([]);
  });

  it('does not read ambiguous words as technologies in ordinary English', () => {
    expect(extractEntities('Go to the store and react quickly to rust on the bike').map((e) => e.name)).toEqual([]);
    expect(extractEntities('We rewrote the worker in Go and the UI in React').map((e) => e.name)).toEqual(['Go', 'React']);
  });

  it('prefers the longer name on overlap (a person called Ruby, then the language)', () => {
    expect(pairs(extractEntities('Ruby Smith writes Ruby at KubeCon 2024'))).toEqual([
      ['Ruby Smith', 'person'],
      ['Ruby', 'technology'],
      ['KubeCon 2024', 'event'],
    ]);
  });

  it('finds named projects', () => {
    expect(pairs(extractEntities('Our PM Jane Doe said the Apollo project ships in Q3'))).toEqual([
      ['Jane Doe', 'person'],
      ['Apollo', 'project'],
    ]);
  });

  it('keeps every confidence within 0..1 and orders by first occurrence', () => {
    const content = 'Alice from Stripe shared https://stripe.com/docs and said Kafka lag hit 30 seconds in Dublin';
    const entities = extractEntities(content);
    for (const e of entities) {
      expect(e.confidence).toBeGreaterThan(0);
      expect(e.confidence).toBeLessThanOrEqual(1);
    }
    const positions = entities.map((e) => content.toLowerCase().indexOf(e.name.toLowerCase()));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('is deterministic: the same input twice gives identical output', () => {
    const content = 'Satya Nadella met the Kubernetes team in Seattle; p95 latency is 80ms per docs/slo.md';
    expect(extractEntities(content)).toEqual(extractEntities(content));
    expect(JSON.stringify(extractEntities(content))).toBe(JSON.stringify(extractEntities(`${content}`)));
  });

  it('still finds lexicon entities past the part compromise reads (NLP_MAX_CHARS)', () => {
    const content = `${'Routine notes without names. '.repeat(200)}Later we adopted Kafka.`;
    expect(extractEntities(content)).toEqual([{ name: 'Kafka', type: 'technology', confidence: 0.9 }]);
  });

  it('returns [] for empty content', () => {
    expect(extractEntities('')).toEqual([]);
    expect(extractEntities('   ')).toEqual([]);
  });
});

describe('normalizeEntityName', () => {
  it('trims punctuation, possessives and extra spaces but keeps C++ and C#', () => {
    expect(normalizeEntityName("  Deutsche   Bank's ")).toBe('Deutsche Bank');
    expect(normalizeEntityName('"Acme Corp".')).toBe('Acme Corp');
    expect(normalizeEntityName('C++,')).toBe('C++');
    expect(normalizeEntityName('C#')).toBe('C#');
  });
});

describe('isEntityRich', () => {
  it('is true for one high-confidence entity or two confident ones', () => {
    expect(isEntityRich('We moved the queue to Kafka')).toBe(true);
    expect(isEntityRich('Alice met Bob in Paris')).toBe(true);
  });

  it('is false for plain prose and for bare numbers', () => {
    expect(isEntityRich('The tests are slow and should be faster')).toBe(false);
    expect(isEntityRich('It improved by 45% to 120ms')).toBe(false);
  });
});

describe('mentionedEntityNames', () => {
  it('returns extracted names and capitalised phrases, without question words', () => {
    expect(mentionedEntityNames('What does Alice think about postgres?')).toEqual(['Alice', 'PostgreSQL']);
    expect(mentionedEntityNames('How did Deutsche Bank handle the SOC2 audit')).toEqual(['Deutsche Bank', 'SOC2']);
    expect(mentionedEntityNames('latency issues in the Billing Service')).toEqual(['Billing Service']);
  });

  it('returns [] when nothing looks like a name', () => {
    expect(mentionedEntityNames('what did we decide about retries?')).toEqual([]);
  });
});

describe('entity types', () => {
  it('lists the spec types', () => {
    expect(ENTITY_TYPES).toHaveLength(12);
    expect(ENTITY_TYPES).toContain('location');
    expect(ENTITY_TYPES).not.toContain('place');
  });

  it('maps the place alias to location, case-insensitively, and rejects unknown types', () => {
    expect(normalizeEntityType('place')).toBe('location');
    expect(normalizeEntityType(' PLACE ')).toBe('location');
    expect(normalizeEntityType('Technology')).toBe('technology');
    expect(normalizeEntityType('planet')).toBeUndefined();
  });
});
