import { parseText, type ParsedText, type TaggedTerm } from './compromise-doc';
import { NOT_AN_ENTITY } from './entity-lexicon';
import {
  documentCandidates,
  heuristicCandidates,
  lexiconCandidates,
  metricCandidates,
  type EntityCandidate,
} from './entity-patterns';
import type { EntityType } from './entity-types';
import { STOPWORDS } from './lexical-tokens';

/** Code-unit order: unlike localeCompare, the same on every machine. */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface ExtractedEntity {
  name: string;
  type: EntityType;
  /** 0..1: curated lexicon ~0.85-0.9, compromise people/organizations/places 0.7-0.8, heuristics lower. */
  confidence: number;
}

/**
 * Strips what is not part of a name: surrounding punctuation and quotes (keeping "C++"/"C#"),
 * a possessive "'s", and runs of whitespace.
 */
export function normalizeEntityName(raw: string): string {
  let name = raw.replace(/\s+/g, ' ').trim();
  name = name.replace(/^[^\p{L}\p{N}$€£@]+/u, '').replace(/[^\p{L}\p{N}%+#]+$/u, '');
  name = name.replace(/['’]s$/u, '').replace(/(?<=s)['’]$/u, '');
  return name.replace(/[^\p{L}\p{N}%+#]+$/u, '');
}

type TermClass = 'person' | 'organization' | 'location' | 'other';

/** Proper nouns that are not entity names: dates ("May"), numbers, demonyms ("French"). */
const UNNAMED_PROPER = ['Date', 'Value', 'Demonym', 'Pronoun'];

/** Which of compromise's named-entity tags a term carries (Person > Organization > Place > ProperNoun). */
function classOf(term: TaggedTerm): TermClass | undefined {
  const { tags } = term;
  if (tags.has('Person')) return 'person';
  if (tags.has('Organization')) return 'organization';
  if (tags.has('Place') || tags.has('Address')) return 'location';
  if (tags.has('ProperNoun') && !UNNAMED_PROPER.some((t) => tags.has(t))) return 'other';
  return undefined;
}

/** Punctuation between two terms ends a name: "Paris, Berlin", "Redis. Alice". */
const separated = (term: TaggedTerm): boolean => /[^\s]/.test(term.post);
const isTitleCase = (text: string): boolean => /^\p{Lu}\p{Ll}/u.test(text);

/**
 * A capitalised noun next to a name extends it: compromise's pre-tagger knows "Tim" but tags
 * "Cook" as a bare proper noun, knows "Patel" but not "Priya", "Musk" but not "Elon".
 */
function extendsName(term: TaggedTerm | undefined): term is TaggedTerm {
  if (!term || !isTitleCase(term.text) || !term.tags.has('Noun')) return false;
  if (['Date', 'Value', 'Pronoun', 'Place', 'Organization', 'Person'].some((t) => term.tags.has(t))) return false;
  const lower = term.text.toLowerCase();
  return !STOPWORDS.has(lower) && !CALENDAR_WORDS.has(lower);
}
/** Caps how far a name grows by extension, so a Title-Cased heading does not become one name. */
const MAX_NAME_TERMS = 4;

/** Months and weekdays the pre-tagger leaves as bare proper nouns ("on March 3", "in May"). */
const CALENDAR_WORDS = new Set(
  'january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday'.split(
    ' ',
  ),
);

const CONFIDENCE: Record<TermClass, (name: string) => number> = {
  // A full name is more reliable than a lone first name.
  person: (name) => (name.includes(' ') ? 0.8 : 0.7),
  organization: () => 0.75,
  location: () => 0.75,
  other: () => 0.4,
};

/**
 * People, organizations and places as compromise tags them (what `.people()`, `.organizations()`
 * and `.places()` select: runs of #Person, #Organization, #Place, split at commas and
 * possessives), and other proper nouns as weak 'other' entities. One pass over the terms.
 */
function compromiseCandidates(parsed: ParsedText): EntityCandidate[] {
  const found: EntityCandidate[] = [];
  for (const terms of parsed.sentences) {
    let i = 0;
    while (i < terms.length) {
      const first = terms[i];
      const type = first ? classOf(first) : undefined;
      if (!first || !type) {
        i += 1;
        continue;
      }
      let from = i;
      let to = i; // inclusive
      while (to + 1 < terms.length) {
        const current = terms[to];
        const next = terms[to + 1];
        if (!current || !next || separated(current) || current.tags.has('Possessive') || classOf(next) !== type) break;
        to += 1;
      }
      if (type === 'person' || type === 'other') {
        const before = terms[from - 1];
        if (extendsName(before) && !separated(before)) from -= 1;
        for (;;) {
          const last = terms[to];
          if (to - from + 1 >= MAX_NAME_TERMS || !last || separated(last) || last.tags.has('Possessive')) break;
          if (!extendsName(terms[to + 1])) break;
          to += 1;
        }
      }
      const startTerm = terms[from];
      const endTerm = terms[to];
      i = to + 1;
      if (!startTerm || !endTerm) continue;
      const raw = parsed.text.slice(startTerm.start, endTerm.end);
      const name = normalizeEntityName(raw);
      const key = name.toLowerCase();
      if (name.length < 2 || NOT_AN_ENTITY.has(key) || STOPWORDS.has(key) || CALENDAR_WORDS.has(key)) continue;
      const start = startTerm.start + Math.max(0, raw.indexOf(name));
      found.push({ name, type, confidence: CONFIDENCE[type](name), start, end: start + name.length });
    }
  }
  return found;
}

/**
 * Longer spans win overlaps ("Ruby Smith" the person over "Ruby" the language, "Microsoft Azure"
 * over "Microsoft"); at equal length the more confident, then the earlier candidate wins.
 */
function resolveOverlaps(candidates: EntityCandidate[]): EntityCandidate[] {
  const ranked = [...candidates].sort(
    (a, b) => b.end - b.start - (a.end - a.start) || b.confidence - a.confidence || a.start - b.start,
  );
  const kept: EntityCandidate[] = [];
  for (const c of ranked) {
    if (!kept.some((k) => c.start < k.end && k.start < c.end)) kept.push(c);
  }
  return kept;
}

/**
 * Deduplicates case-insensitively: one entity per name, positioned at its first occurrence and
 * typed by its most confident sighting.
 */
function dedupe(candidates: EntityCandidate[]): EntityCandidate[] {
  const byName = new Map<string, EntityCandidate>();
  for (const c of [...candidates].sort((a, b) => a.start - b.start)) {
    const key = c.name.toLowerCase();
    const seen = byName.get(key);
    if (!seen) byName.set(key, c);
    else if (c.confidence > seen.confidence) byName.set(key, { ...c, start: seen.start, end: seen.end });
  }
  return [...byName.values()].sort((a, b) => a.start - b.start || compareStrings(a.name, b.name));
}

/** Deduplicated candidates with their first positions, in order of first occurrence. */
function extractCandidates(content: string): EntityCandidate[] {
  if (content.trim() === '') return [];
  const candidates = [
    ...documentCandidates(content),
    ...lexiconCandidates(content),
    ...metricCandidates(content),
    ...heuristicCandidates(content),
    ...compromiseCandidates(parseText(content)),
  ];
  return dedupe(resolveOverlaps(candidates));
}

/**
 * Entities mentioned in the content, in order of first occurrence. Deterministic and offline:
 * a curated lexicon (technologies, products, companies; canonical casing), regexes for URLs,
 * files and metrics, role/project/event patterns, and compromise's people/organizations/places
 * (over the first NLP_MAX_CHARS characters).
 */
export function extractEntities(content: string): ExtractedEntity[] {
  let found = recent.get(content);
  if (found) recent.delete(content);
  else found = extractCandidates(content).map(({ name, type, confidence }) => Object.freeze({ name, type, confidence }));
  recent.set(content, found);
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
  return [...found];
}

/**
 * The last few contents' entities: one create asks for them up to three times (type
 * classification, whether to extract, the extraction), and the NLP pass is its costliest CPU step.
 */
const recent = new Map<string, readonly ExtractedEntity[]>();
const RECENT_MAX = 32;

const RICH_MIN_CONFIDENCE = 0.5;
const HIGH_CONFIDENCE = 0.85;

/**
 * Whether automatic entity extraction is worth running (auto_extract_entities = null): at least
 * two entities of confidence ≥ 0.5, or one of ≥ 0.85 (a lexicon hit, a URL).
 */
export function isEntityRich(content: string): boolean {
  const entities = extractEntities(content);
  if (entities.some((e) => e.confidence >= HIGH_CONFIDENCE)) return true;
  return entities.filter((e) => e.confidence >= RICH_MIN_CONFIDENCE).length >= 2;
}

/** Question and command words that open queries capitalised without naming anything. */
const QUERY_WORDS = new Set(
  'what when where who whom whose why how which is are was were do does did can could should would will tell show find list give get explain describe summarize any anything everything recent latest'.split(
    ' ',
  ),
);

/** A capitalised word ("Bank", "SOC2", "O'Brien", "Node.js") and runs of them on one line. */
const CAPITALISED_RUN = /(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}&'’-]*(?:\.[\p{L}\p{N}]+)*(?:[ \t]+\p{Lu}[\p{L}\p{N}&'’-]*(?:\.[\p{L}\p{N}]+)*)*/gu;

const isFiller = (word: string): boolean => QUERY_WORDS.has(word.toLowerCase()) || STOPWORDS.has(word.toLowerCase());

/**
 * Names in a search query that may match stored entities, for hybrid search's graph candidates:
 * every extracted entity name, then runs of capitalised or all-caps words ("Deutsche Bank",
 * "SOC2") not already covered, without leading question words. Deduplicated case-insensitively,
 * in order of appearance.
 */
export function mentionedEntityNames(query: string): string[] {
  const found: Array<{ name: string; start: number }> = [];
  const seen = new Set<string>();
  const add = (name: string, start: number): void => {
    const key = name.toLowerCase();
    if (name.length < 2 || seen.has(key) || NOT_AN_ENTITY.has(key) || isFiller(name)) return;
    seen.add(key);
    found.push({ name, start });
  };
  for (const c of extractCandidates(query)) add(c.name, c.start);

  for (const m of query.matchAll(CAPITALISED_RUN)) {
    // Skip leading question words: "What Redis settings" → "Redis".
    const firstKept = [...m[0].matchAll(/\S+/g)].find((w) => !isFiller(w[0]));
    if (firstKept?.index === undefined) continue;
    add(normalizeEntityName(m[0].slice(firstKept.index)), (m.index ?? 0) + firstKept.index);
  }
  return found.sort((a, b) => a.start - b.start || compareStrings(a.name, b.name)).map((f) => f.name);
}
