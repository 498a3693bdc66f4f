import winston from 'winston';
import type { Config } from './config';

export type Logger = winston.Logger;

/** Field names whose values must never reach a log line. */
const SECRET_KEYS = /^(authorization|x-api-key|api_key|apikey|key|password|secret|token|cookie|embedding)$/i;

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEYS.test(key)) info[key] = '[redacted]';
  }
  return info;
});

/**
 * winston runs a logger's formats on every line and leaves the level to its transports, so a request's
 * info line cost its timestamp and JSON at LOG_LEVEL=error too. This drops it first.
 */
const { levels } = winston.config.npm;
const atLevel = winston.format((info, of) => (levels[info.level]! <= levels[(of as { level(): string }).level()]! ? info : false));

/** One logger per process; child loggers add request_id / job_id. */
export function createLogger(service: string, config: Pick<Config, 'logLevel' | 'logFormat' | 'nodeEnv'>): Logger {
  // The logger's level as it is when a line is written (it can be changed at run time).
  const gate = atLevel({ level: () => logger.level });
  const format =
    config.logFormat === 'json'
      ? winston.format.combine(gate, redact(), winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          gate,
          redact(),
          winston.format.timestamp({ format: 'HH:mm:ss.SSS' }),
          winston.format.colorize(),
          winston.format.printf(({ timestamp, level, message, service: svc, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${timestamp} ${level} [${svc}] ${message}${extra}`;
          }),
        );
  const logger = winston.createLogger({
    level: config.logLevel,
    defaultMeta: { service },
    format,
    // Tests stay quiet unless LOG_LEVEL asks otherwise.
    silent: config.nodeEnv === 'test' && !process.env.LOG_LEVEL,
    transports: [new winston.transports.Console()],
  });
  return logger;
}
