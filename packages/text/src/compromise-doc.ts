import nlp from 'compromise';

/** A parsed compromise document (its View type); used read-only by this package. */
type NlpDoc = ReturnType<typeof nlp>;

/**
 * Tagging costs about 2-3 ms per 1,000 characters, so only this many leading characters are
 * handed to compromise (cut at a word boundary). Lexicon and regex rules still see the whole text.
 */
const NLP_MAX_CHARS = 2_000;

/**
 * `nlp(text)` runs every hook (about 5-6 ms per 1,000 characters here). We stop after the
 * lexicon and pre-tagger, which set the tags we read (Person, Organization, Place, ProperNoun,
 * PastTense, Date, Infinitive):
 * - 'postTagger' (half the time) mostly refines ambiguous words; the two corrections that matter
 *   here are redone cheaply: multi-word names ("Tim Cook") in extract-entities and imperatives
 *   in classify-memory-type.
 * - 'chunks' feeds only `.nouns()`/`.verbs()`, which this package does not use.
 * - `tokenize` has already run the first hooks.
 * If compromise renames a hook, it simply runs again: slower, never wrong.
 */
const SKIPPED_HOOKS = new Set(['contractions', 'alias', 'machine', 'postTagger', 'chunks']);
const TAGGING_HOOKS = nlp.hooks().filter((hook) => !SKIPPED_HOOKS.has(hook));

/** What the rules read: the parsed prefix, compromise's doc, and its terms with offsets. */
export interface ParsedText {
  text: string;
  doc: NlpDoc;
  sentences: TaggedTerm[][];
}

/** Cuts to at most `max` characters, backing off to the last whitespace so no word is split. */
export function nlpInput(text: string, max = NLP_MAX_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  if (/\s/.test(text.charAt(max))) return cut;
  const lastSpace = cut.search(/\s\S*$/);
  return lastSpace > 0 ? cut.slice(0, lastSpace) : cut;
}

/** A term of a parsed sentence with its character span in the parsed text. */
export interface TaggedTerm {
  text: string;
  /** Whitespace and punctuation after the term ("", " ", ", ", ". "). */
  post: string;
  tags: ReadonlySet<string>;
  start: number;
  end: number;
}

const NO_TAGS: ReadonlySet<string> = new Set();

/**
 * The doc's sentences as term lists with offsets into the parsed text (compromise keeps every
 * character in some term's pre/text/post; if that ever fails, the term is searched for instead).
 */
function taggedSentences(doc: NlpDoc, parsedText: string): TaggedTerm[][] {
  let offset = 0;
  return doc.document.map((sentence) =>
    sentence.map((term) => {
      let start = offset + term.pre.length;
      if (parsedText.slice(start, start + term.text.length) !== term.text) {
        const found = parsedText.indexOf(term.text, offset);
        start = found >= 0 ? found : start;
      }
      offset = start + term.text.length + term.post.length;
      return { text: term.text, post: term.post, tags: term.tags ?? NO_TAGS, start, end: start + term.text.length };
    }),
  );
}

/**
 * Classification and extraction run on the same content during one memory create: a small
 * most-recently-used cache lets them share one parse. Callers must not mutate what they get.
 */
const CACHE_SIZE = 16;
const cache = new Map<string, ParsedText>();

/** Parses (and tags) the text's first NLP_MAX_CHARS characters. */
export function parseText(text: string): ParsedText {
  const input = nlpInput(text);
  const hit = cache.get(input);
  if (hit) {
    cache.delete(input);
    cache.set(input, hit);
    return hit;
  }
  // tokenize() is typed as the untagged View; after the tagging hooks it is a tagged document.
  const doc = nlp.tokenize(input).compute(TAGGING_HOOKS) as NlpDoc;
  const parsed = { text: input, doc, sentences: taggedSentences(doc, input) };
  cache.set(input, parsed);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  return parsed;
}

/**
 * The text cut into compromise's sentences, verbatim (tokenizer only, no tagging). compromise
 * keeps every character in some term's pre/text/post; should that ever fail, the text is
 * returned whole.
 */
export function sentenceTexts(text: string): string[] {
  const pieces = nlp.tokenize(text).document.map((terms) => terms.map((t) => t.pre + t.text + t.post).join(''));
  return pieces.join('') === text ? pieces : [text];
}
