import { Transform } from 'node:stream';
import cliProgress from 'cli-progress';

const units = ['B', 'KB', 'MB', 'GB'];
/** 1536 → "1.5 KB". */
export function formatBytes(n: number): string {
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

/**
 * Counts the bytes that pass through it and, when stderr is a terminal, draws them with their rate
 * (a bar when the total is known). Elsewhere it draws nothing: stderr stays clean for scripts.
 */
export class ByteProgress extends Transform {
  bytes = 0;
  /** Newlines seen: an NDJSON stream's records. */
  lines = 0;
  private readonly started = Date.now();
  private readonly bar?: cliProgress.SingleBar;

  constructor(label: string, total?: number, stream: NodeJS.WriteStream = process.stderr) {
    super();
    if (!stream.isTTY) return;
    const format = total ? `${label} [{bar}] {percentage}% | {done} of {size} | {rate}` : `${label} {done} | {rate}`;
    this.bar = new cliProgress.SingleBar({ stream, format, hideCursor: true, fps: 5, clearOnComplete: false }, cliProgress.Presets.shades_classic);
    this.bar.start(total ?? 0, 0, { done: formatBytes(0), size: formatBytes(total ?? 0), rate: '-' });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.lines++;
    const seconds = (Date.now() - this.started) / 1000;
    this.bar?.update(this.bytes, { done: formatBytes(this.bytes), rate: seconds > 0 ? `${formatBytes(this.bytes / seconds)}/s` : '-' });
    done(null, chunk);
  }

  /** Removes the bar's line (call once the transfer is over, whatever its outcome). */
  stop(): void {
    this.bar?.stop();
  }

  /** Bytes per second over the whole transfer. */
  get rate(): number {
    const seconds = (Date.now() - this.started) / 1000;
    return seconds > 0 ? this.bytes / seconds : 0;
  }
}
