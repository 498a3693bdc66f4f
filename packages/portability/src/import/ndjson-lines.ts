import { StringDecoder } from 'node:string_decoder';

export interface InputLine {
  /** 1-based. */
  line: number;
  text: string;
  /** The line was longer than the limit; text holds nothing of it. */
  tooLong?: boolean;
}

/**
 * Splits a byte stream into lines without ever holding more than one line (up to maxBytes):
 * the rest of a longer line is dropped and the line reported as too long. Blank lines are skipped.
 */
export async function* ndjsonLines(input: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<InputLine> {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let line = 1;
  let overflow = false;
  const emit = function* (text: string): Generator<InputLine> {
    const n = line++;
    if (overflow) yield { line: n, text: '', tooLong: true };
    else if (text.trim() !== '') yield { line: n, text: text.replace(/\r$/, '') };
    overflow = false;
  };
  for await (const chunk of input) {
    buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      yield* emit(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    if (Buffer.byteLength(buffer) > maxBytes) {
      overflow = true;
      buffer = '';
    }
  }
  buffer += decoder.end();
  if (buffer !== '' || overflow) yield* emit(buffer);
}
