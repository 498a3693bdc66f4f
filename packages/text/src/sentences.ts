import { sentenceTexts } from './compromise-doc';

/** Where a sentence could end: terminal punctuation (and closing quotes) before a space, or a line break. */
const POSSIBLE_END = /[.!?…]+["'”’)\]]*[ \t]+|[ \t]*\n\s*/g;
/** compromise's tokenizer grows faster than linearly on long input, so it gets pieces of this size. */
const CHUNK_CHARS = 2_000;
/** A run this long without any possible sentence end is one "sentence" (a pasted blob, a long URL list). */
const LONG_SEGMENT_CHARS = 3_000;

/**
 * Cuts text into chunks of up to about CHUNK_CHARS, only at possible sentence ends. Every true
 * sentence end is a possible end, so a chunk edge can only wrongly split at an abbreviation
 * ("Dr. | Smith"), at most once per chunk.
 */
function chunksForSplitting(text: string): string[] {
  const segments: string[] = [];
  let from = 0;
  for (const m of text.matchAll(POSSIBLE_END)) {
    const end = (m.index ?? 0) + m[0].length;
    segments.push(text.slice(from, end));
    from = end;
  }
  if (from < text.length) segments.push(text.slice(from));

  const chunks: string[] = [];
  let current = '';
  for (const segment of segments) {
    if (current !== '' && current.length + segment.length > CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
    current += segment;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/**
 * Splits text into sentences with compromise's sentence splitter (abbreviations such as "Dr." or
 * "e.g.", decimals and URLs do not end a sentence; line breaks do). Each sentence is returned
 * verbatim from the original text, trimmed. Blank text gives []. Long text is split in chunks
 * of about 2,000 characters at possible sentence ends, and a run of over 3,000 characters with
 * no possible end is kept whole; both keep the cost linear.
 */
export function splitSentences(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const sentences: string[] = [];
  for (const chunk of chunksForSplitting(trimmed)) {
    const pieces = chunk.length > LONG_SEGMENT_CHARS ? [chunk] : sentenceTexts(chunk);
    for (const piece of pieces) {
      const sentence = piece.trim();
      if (sentence !== '') sentences.push(sentence);
    }
  }
  return sentences;
}

/** Token estimate used for budgets throughout the service: 1 token is about 4 characters. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Shortens text to at most `maxChars` characters without cutting a word (a word is a run of
 * non-whitespace characters). Text that already fits is returned unchanged. Trailing whitespace
 * of a cut result is removed.
 *
 * - If even the first word is longer than `maxChars`, the result is '' (never half a word).
 * - No ellipsis is added by default. When `ellipsis` is given and the text had to be cut, it is
 *   appended and the cut is made earlier so that the result, ellipsis included, still fits;
 *   if no whole word fits beside the ellipsis the result is ''.
 */
export function truncateAtWord(text: string, maxChars: number, ellipsis = ''): string {
  if (text.length <= maxChars) return text;
  const budget = Math.floor(maxChars) - ellipsis.length;
  if (budget <= 0) return '';
  const cut = text.slice(0, budget);
  // The cut ends on a word boundary when the next character is whitespace.
  const body = /\s/.test(text.charAt(budget)) ? cut : cut.replace(/\S+$/, '');
  const trimmedBody = body.trimEnd();
  return trimmedBody === '' ? '' : trimmedBody + ellipsis;
}
