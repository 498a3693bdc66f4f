import { LEXICON, LEXICON_CONFIDENCE, type LexiconEntry } from './entity-lexicon';
import type { EntityType } from './entity-types';
import { STOPWORDS } from './lexical-tokens';

/** A possible entity with where it sits in the text; overlaps are resolved by the caller. */
export interface EntityCandidate {
  name: string;
  type: EntityType;
  confidence: number;
  start: number;
  end: number;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Spelling (lowercased) → entry; the first entry to claim a spelling keeps it. */
const SPELLINGS = new Map<string, LexiconEntry>();
for (const entry of LEXICON) {
  for (const spelling of [entry.name, ...(entry.aliases ?? [])]) {
    const key = spelling.toLowerCase();
    if (!SPELLINGS.has(key)) SPELLINGS.set(key, entry);
  }
}

/**
 * One alternation over every spelling, longest first so "JavaScript" wins over "Java". A hit must
 * not touch letters/digits on either side, nor sit inside a path or file name ("docs/redis.md").
 */
const LEXICON_PATTERN = new RegExp(
  '(?<![\\p{L}\\p{N}_@/.#-])(?:' +
    [...SPELLINGS.keys()]
      .sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0))
      .map(escapeRegExp)
      .join('|') +
    ')(?![\\p{L}\\p{N}_]|\\.[\\p{L}\\p{N}])',
  'giu',
);

/** True when `index` is the first word of a sentence (ignoring quotes, brackets and bullets). */
function atSentenceStart(text: string, index: number): boolean {
  const before = text.slice(0, index).replace(/[\s"'“‘([*•-]+$/u, '');
  return before === '' || /[.!?:;\n]$/.test(before) || /\n\s*$/.test(text.slice(0, index));
}

function spellingsOf(entry: LexiconEntry): string[] {
  return [entry.name, ...(entry.aliases ?? [])];
}

/** Curated technologies, products and companies, returned under their canonical names. */
export function lexiconCandidates(text: string): EntityCandidate[] {
  const found: EntityCandidate[] = [];
  for (const match of text.matchAll(LEXICON_PATTERN)) {
    const surface = match[0];
    const index = match.index ?? 0;
    const entry = SPELLINGS.get(surface.toLowerCase());
    if (!entry) continue;
    if (entry.caseSensitive && !spellingsOf(entry).includes(surface)) continue;
    if (entry.notSentenceStart && atSentenceStart(text, index)) continue;
    found.push({
      name: entry.name,
      type: entry.type,
      confidence: LEXICON_CONFIDENCE[entry.type] ?? 0.85,
      start: index,
      end: index + surface.length,
    });
  }
  return found;
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/giu;
const FILE_EXTENSIONS = [
  ...['md', 'mdx', 'pdf', 'docx?', 'odt', 'rtf', 'txt', 'csv', 'tsv', 'xlsx?', 'pptx?', 'ipynb', 'html?', 'log'],
  ...['json', 'ya?ml', 'toml', 'sql', 'ts', 'js', 'py', 'go', 'rs', 'java', 'rb', 'sh'],
];
/** An optional path, a name, and a known extension: "docs/setup.md", "q3-report.pdf". */
const FILE_PATTERN = new RegExp(
  String.raw`(?<![\p{L}\p{N}_/.@-])(?:[\p{L}\p{N}_.-]+/)*[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*` +
    String.raw`\.(?:${FILE_EXTENSIONS.join('|')})(?![\p{L}\p{N}_])`,
  'giu',
);
const WELL_KNOWN_FILES = /\b(?:README|CHANGELOG|LICENSE|CONTRIBUTING|ROADMAP|Dockerfile|Makefile)\b/gu;
const RFC_PATTERN = /\bRFC[ -]?\d{3,5}\b/gu;
/** Entity names are capped at 255 characters by the spec; longer URLs are not worth a node. */
const MAX_NAME = 255;

/** URLs, file names and well-known documents. */
export function documentCandidates(text: string): EntityCandidate[] {
  const found: EntityCandidate[] = [];
  const push = (name: string, start: number, confidence: number): void => {
    if (name.length === 0 || name.length > MAX_NAME) return;
    found.push({ name, type: 'document', confidence, start, end: start + name.length });
  };
  for (const m of text.matchAll(URL_PATTERN)) {
    // Sentence punctuation after a URL is not part of it; a ")" only when unbalanced.
    let url = m[0].replace(/[.,;:!?'"\]]+$/u, '');
    while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) {
      url = url.slice(0, -1).replace(/[.,;:!?]+$/u, '');
    }
    push(url, m.index ?? 0, 0.85);
  }
  for (const m of text.matchAll(FILE_PATTERN)) {
    // "Node.js" or "Next.js" are technologies, not files.
    if (SPELLINGS.has(m[0].toLowerCase())) continue;
    push(m[0], m.index ?? 0, 0.8);
  }
  for (const m of text.matchAll(WELL_KNOWN_FILES)) push(m[0], m.index ?? 0, 0.8);
  for (const m of text.matchAll(RFC_PATTERN)) push(m[0], m.index ?? 0, 0.75);
  return found;
}

/** Named measures; percentiles with an optional following measure ("p99 latency"). */
const METRIC_NAMES = new RegExp(
  String.raw`\b(?:${[
    'p(?:50|75|90|95|99|99\\.9|999)(?:\\s+(?:latency|response time|duration))?',
    ...['error rate', 'uptime', 'throughput', 'availability', 'response time', 'cpu (?:usage|utili[sz]ation)'],
    ...['memory usage', 'cache hit (?:rate|ratio)', 'hit rate', 'conversion rate', 'churn rate', 'bounce rate'],
    ...['MRR', 'ARR', 'NPS', 'DAU', 'MAU'],
  ].join('|')})\b`,
  'giu',
);
/** Units a measured value may carry; "s" and "x" only as whole words ("3 s", "3x", not "3 sheep"). */
const UNITS = [
  ...['%', 'percent\\b', 'ms\\b', 'µs\\b', 'ns\\b', 's\\b', 'secs?\\b', 'seconds?\\b', 'mins?\\b', 'minutes?\\b'],
  ...['[kmgtp]b\\b', '[kmgt]ib\\b', 'req/s', 'requests/s(?:ec)?', 'rps\\b', 'qps\\b', 'tps\\b', 'ops/s', 'rpm\\b'],
  ...['ghz\\b', 'mhz\\b'],
];
const COUNTED = '(?:users|customers|requests|rows|records|events|downloads|visits)';
/** A number with a unit, percent sign or currency: "120ms", "45%", "1.5 GB", "$1.2M", "3x", "10k users". */
const METRIC_VALUES = new RegExp(
  String.raw`(?<![\p{L}\p{N}_.:/-])(?:` +
    String.raw`[$€£]\d+(?:[.,]\d+)*(?:\s?(?:k|m|bn|b)\b)?` +
    String.raw`|\d+(?:[.,]\d+)*(?:\s?(?:${UNITS.join('|')})|x\b|[km]\s${COUNTED}\b))`,
  'giu',
);

/**
 * Named metrics (0.6) and measured values (0.45: a bare "45%" is a weak graph node, so values
 * alone do not make content entity-rich).
 */
export function metricCandidates(text: string): EntityCandidate[] {
  const found: EntityCandidate[] = [];
  for (const m of text.matchAll(METRIC_NAMES)) {
    const start = m.index ?? 0;
    found.push({ name: m[0].replace(/\s+/g, ' '), type: 'metric', confidence: 0.6, start, end: start + m[0].length });
  }
  for (const m of text.matchAll(METRIC_VALUES)) {
    const start = m.index ?? 0;
    found.push({ name: m[0].replace(/\s+/g, ' '), type: 'metric', confidence: 0.45, start, end: start + m[0].length });
  }
  return found;
}

const NAME = String.raw`\p{Lu}[\p{Ll}'’-]+(?:\s+\p{Lu}[\p{Ll}'’-]+){1,2}`;
const ROLE_TITLES = [
  ...['CEO', 'CTO', 'CFO', 'COO', 'CIO', 'CPO', 'VP', 'PM', 'founder', 'co-?founder', 'president', 'chair(?:man|woman|person)?'],
  ...['director', 'manager', 'product manager', 'engineer', 'developer', 'designer', 'owner', 'maintainer', 'architect'],
  ...['analyst', 'scientist', 'researcher', 'recruiter', 'consultant', 'advisor', 'head of \\p{L}+'],
];
const ROLE = String.raw`(?:(?:new|former|acting|lead|senior|staff|principal|chief)\s+)?(?:${ROLE_TITLES.join('|')})`;
/** "Satya Nadella is the CEO of ...", "Jane Doe, our staff engineer". */
const PERSON_BEFORE_ROLE = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(${NAME}),?\s+(?:(?:is|was|has been|will be|as)\s+)?(?:(?:the|a|an|our|their|its)\s+)?${ROLE}\b`,
  'gu',
);
/** "CEO Satya Nadella", "our manager Jane Doe". */
const PERSON_AFTER_ROLE = new RegExp(String.raw`\b${ROLE}\s+(${NAME})(?![\p{L}\p{N}])`, 'gu');

const PROJECT_AFTER = /\b[Pp]roject\s+(\p{Lu}[\p{L}\p{N}-]*(?:\s+\p{Lu}[\p{L}\p{N}-]*)?)/gu;
const PROJECT_BEFORE = /(?<![\p{L}\p{N}])(\p{Lu}[\p{L}\p{N}-]*(?:\s+\p{Lu}[\p{L}\p{N}-]*)?)\s+project\b/gu;
/** Capitalised words that open a phrase without naming anything ("New project", "Our project"). */
const NOT_A_NAME = new Set(
  ['new', 'old', 'next', 'last', 'main', 'side', 'pet', 'current', 'previous', 'yesterday', 'today', 'tomorrow'],
);

/** "React Summit", "AI Engineer Conference 2025", "KubeCon 2024" (at most four leading words). */
const EVENT_NAME = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:\p{Lu}[\p{L}\p{N}]*\s+){1,4}` +
    String.raw`(?:Conference|Summit|Meetup|Hackathon|Offsite|Expo|Keynote|Retreat)(?:\s+\d{4})?\b` +
    String.raw`|\b\p{Lu}\p{L}*Con(?:\s+\d{4})?\b`,
  'gu',
);

function isNameLike(name: string): boolean {
  const first = name.split(/\s+/)[0]?.toLowerCase() ?? '';
  return !STOPWORDS.has(first) && !NOT_A_NAME.has(first) && !SPELLINGS.has(name.toLowerCase());
}

/** Lower-confidence patterns: people by role, named projects, named events. */
export function heuristicCandidates(text: string): EntityCandidate[] {
  const found: EntityCandidate[] = [];
  const pushGroup = (m: RegExpMatchArray, type: EntityType, confidence: number): void => {
    const name = m[1];
    if (name === undefined || !isNameLike(name)) return;
    const start = (m.index ?? 0) + m[0].indexOf(name);
    found.push({ name, type, confidence, start, end: start + name.length });
  };
  for (const m of text.matchAll(PERSON_BEFORE_ROLE)) pushGroup(m, 'person', 0.65);
  for (const m of text.matchAll(PERSON_AFTER_ROLE)) pushGroup(m, 'person', 0.65);
  for (const m of text.matchAll(PROJECT_AFTER)) pushGroup(m, 'project', 0.6);
  for (const m of text.matchAll(PROJECT_BEFORE)) pushGroup(m, 'project', 0.6);
  for (const m of text.matchAll(EVENT_NAME)) {
    const start = m.index ?? 0;
    if (!isNameLike(m[0])) continue;
    found.push({ name: m[0].replace(/\s+/g, ' '), type: 'event', confidence: 0.6, start, end: start + m[0].length });
  }
  return found;
}
