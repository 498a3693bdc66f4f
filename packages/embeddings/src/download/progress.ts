import cliProgress from 'cli-progress';

/** What the downloader tells about its work; a TTY bar or periodic log lines. */
export interface DownloadProgress {
  fileStarted(file: string, total: number | undefined, already: number): void;
  advanced(file: string, bytes: number): void;
  fileDone(file: string): void;
  retrying(file: string, attempt: number, reason: string): void;
  finish(): void;
}

interface LineLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

const MB = 1024 * 1024;
const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

/** A bar per file with bytes, rate and ETA (cli-progress computes rate and ETA), on a terminal. */
function terminalProgress(stream: NodeJS.WriteStream = process.stderr): DownloadProgress {
  let bar: cliProgress.SingleBar | undefined;
  let value = 0;
  let start = { at: 0, value: 0 };
  return {
    fileStarted(file, total, already) {
      value = already;
      start = { at: Date.now(), value: already };
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `  ${file.padEnd(28)} [{bar}] {percentage}% | {done}/{size} | {rate} | ETA {eta_formatted}`,
          hideCursor: true,
          etaBuffer: 50,
          fps: 5,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total ?? 0, already, { done: mb(already), size: total === undefined ? '?' : mb(total), rate: '-' });
    },
    advanced(_file, bytes) {
      value += bytes;
      const seconds = (Date.now() - start.at) / 1000;
      const rate = seconds > 0 ? `${mb((value - start.value) / seconds)}/s` : '-';
      bar?.update(value, { done: mb(value), rate });
    },
    fileDone() {
      bar?.stop();
      bar = undefined;
    },
    retrying(file, attempt, reason) {
      bar?.stop();
      bar = undefined;
      stream.write(`  ${file}: attempt ${attempt} failed (${reason}); retrying\n`);
    },
    finish() {
      bar?.stop();
    },
  };
}

/** Without a terminal (a service's log): one line per file and one every intervalMs while it runs. */
export function logProgress(logger: LineLogger, intervalMs = 5_000, now: () => number = Date.now): DownloadProgress {
  let current: { file: string; total?: number; done: number; startedAt: number; startDone: number; lastLog: number } | undefined;
  const line = (c: NonNullable<typeof current>) => {
    const seconds = Math.max(0.001, (now() - c.startedAt) / 1000);
    const rate = (c.done - c.startDone) / seconds;
    const eta = c.total !== undefined && rate > 0 ? Math.round((c.total - c.done) / rate) : undefined;
    return {
      file: c.file,
      bytes: c.done,
      total_bytes: c.total ?? null,
      percent: c.total ? Math.floor((100 * c.done) / c.total) : null,
      rate: `${mb(rate)}/s`,
      eta_seconds: eta ?? null,
    };
  };
  return {
    fileStarted(file, total, already) {
      current = { file, total, done: already, startedAt: now(), startDone: already, lastLog: now() };
      logger.info('downloading model file', line(current));
    },
    advanced(_file, bytes) {
      if (!current) return;
      current.done += bytes;
      if (now() - current.lastLog >= intervalMs) {
        current.lastLog = now();
        logger.info('downloading model file', line(current));
      }
    },
    fileDone(file) {
      if (current) logger.info('model file downloaded', { ...line(current), file });
      current = undefined;
    },
    retrying(file, attempt, reason) {
      logger.warn('model file download failed; retrying', { file, attempt, reason });
      current = undefined;
    },
    finish() {
      current = undefined;
    },
  };
}

/** The bar on a terminal, log lines otherwise. */
export function progressFor(logger: LineLogger, stream: NodeJS.WriteStream = process.stderr): DownloadProgress {
  return stream.isTTY ? terminalProgress(stream) : logProgress(logger);
}
