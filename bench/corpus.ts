/**
 * The benches' real-text corpus: Debian's English package descriptions.
 *
 * `apt-get -o Acquire::Languages=en update` leaves `*_i18n_Translation-en*` lists under
 * /var/lib/apt/lists (lz4 on bookworm; apt's own helper decompresses whatever apt wrote). Each
 * distinct description paragraph is a document; each package's one-line short description is a
 * query whose relevant answers are that package's paragraphs. Parsed once into .cache/bench/.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { prng } from './support';

const LISTS_DIR = process.env.BENCH_APT_LISTS ?? '/var/lib/apt/lists';
const CACHE_DIR = path.resolve(__dirname, '../.cache/bench');
const APT_HELPER = '/usr/lib/apt/apt-helper';

export interface Corpus {
  /** Documents in a deterministic, shuffled order: any prefix samples the whole archive. */
  docs: string[];
  /** How many of `docs` are whole paragraphs; the rest are single sentences of them (padding for big sizes). */
  paragraphs: number;
  /** Short description → indices into `docs` of its packages' paragraphs (and sentences), in shuffled order. */
  queries: Array<{ text: string; relevant: number[] }>;
}

function translationLists(): string[] {
  if (!fs.existsSync(LISTS_DIR)) return [];
  return fs
    .readdirSync(LISTS_DIR)
    .filter((f) => /_i18n_Translation-en(\.(lz4|gz|xz|zst|bz2))?$/.test(f))
    .sort()
    .map((f) => path.join(LISTS_DIR, f));
}

function readList(file: string): string {
  // apt-helper cat-file decompresses any format apt fetches; the lz4 CLI is the fallback.
  if (fs.existsSync(APT_HELPER)) return execFileSync(APT_HELPER, ['cat-file', file], { maxBuffer: 1 << 30 }).toString('utf8');
  if (file.endsWith('.lz4')) return execFileSync('lz4', ['-dc', file], { maxBuffer: 1 << 30 }).toString('utf8');
  return fs.readFileSync(file, 'utf8');
}

interface Package {
  name: string;
  short: string;
  paragraphs: string[];
}

function parse(text: string): Package[] {
  const out: Package[] = [];
  for (const stanza of text.split(/\n\n+/)) {
    const name = /^Package: (.+)$/m.exec(stanza)?.[1];
    const desc = /^Description-en: (.*)\n((?: .*\n?)*)/m.exec(stanza);
    if (!name || !desc) continue;
    const paragraphs = desc[2]!
      .split(/^ \.\s*$/m)
      .map((p) => p.split('\n').map((l) => l.trim()).filter(Boolean).join(' '))
      .filter((p) => p.length >= 20);
    out.push({ name, short: desc[1]!.trim(), paragraphs });
  }
  return out;
}

const sentencesOf = (p: string) => p.split(/(?<=[.!?])\s+(?=[A-Z])/).filter((s) => s.length >= 40);

function shuffle<T>(items: T[], seed: number): T[] {
  const rand = prng(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function build(lists: string[]): Corpus {
  const packages = lists.flatMap((f) => parse(readList(f)));
  packages.sort((a, b) => a.name.localeCompare(b.name));
  const docIndex = new Map<string, number>();
  const paragraphs: string[] = [];
  const sentences: string[] = [];
  const byQuery = new Map<string, Set<string>>();
  for (const p of packages) {
    const texts = byQuery.get(p.short) ?? new Set<string>();
    byQuery.set(p.short, texts);
    for (const para of p.paragraphs) {
      texts.add(para);
      if (!docIndex.has(para)) {
        docIndex.set(para, -1);
        paragraphs.push(para);
      }
      const parts = sentencesOf(para);
      if (parts.length < 2) continue;
      for (const s of parts) {
        texts.add(s);
        if (!docIndex.has(s)) {
          docIndex.set(s, -1);
          sentences.push(s);
        }
      }
    }
  }
  const docs = [...shuffle(paragraphs, 1), ...shuffle(sentences, 2)];
  docs.forEach((d, i) => docIndex.set(d, i));
  const queries = shuffle(
    [...byQuery].filter(([, texts]) => texts.size > 0).map(([text, texts]) => ({ text, relevant: [...texts].map((t) => docIndex.get(t)!).sort((a, b) => a - b) })),
    3,
  );
  return { docs, paragraphs: paragraphs.length, queries };
}

/** The corpus, parsed once and cached (keyed by the lists' names, sizes and dates); null when apt has no English lists. */
export function loadCorpus(): Corpus | null {
  const lists = translationLists();
  if (lists.length === 0) return null;
  const key = crypto
    .createHash('sha1')
    .update(lists.map((f) => `${f}:${fs.statSync(f).size}:${fs.statSync(f).mtimeMs}`).join('\n'))
    .digest('hex')
    .slice(0, 12);
  const file = path.join(CACHE_DIR, `debian-corpus-${key}.json`);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Corpus;
  const corpus = build(lists);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(corpus));
  fs.renameSync(`${file}.tmp`, file);
  return corpus;
}

export const CORPUS_MISSING =
  'No English Debian package descriptions under ' +
  LISTS_DIR +
  '. Fetch them once (as root) with\n  apt-get -o Acquire::Languages=en update\n' +
  'then rerun. (Set BENCH_APT_LISTS to read *_i18n_Translation-en* lists from another directory.)';

/** The queries whose relevant documents fall (at least partly) in the first `n` documents, relevance cut to them. */
export function queriesFor(corpus: Corpus, n: number, count: number): Array<{ text: string; relevant: Set<number> }> {
  const out: Array<{ text: string; relevant: Set<number> }> = [];
  for (const q of corpus.queries) {
    const relevant = q.relevant.filter((i) => i < n);
    if (relevant.length === 0) continue;
    out.push({ text: q.text, relevant: new Set(relevant) });
    if (out.length === count) break;
  }
  return out;
}

/** The CACHE_DIR, for other cached bench artefacts (vectors). */
export const BENCH_CACHE_DIR = CACHE_DIR;
