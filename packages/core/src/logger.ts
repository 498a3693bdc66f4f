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

/** One logger per process; child loggers add request_id / job_id. */
export function createLogger(service: string, config: Pick<Config, 'logLevel' | 'logFormat' | 'nodeEnv'>): Logger {
  const format =
    config.logFormat === 'json'
      ? winston.format.combine(redact(), winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          redact(),
          winston.format.timestamp({ format: 'HH:mm:ss.SSS' }),
          winston.format.colorize(),
          winston.format.printf(({ timestamp, level, message, service: svc, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${timestamp} ${level} [${svc}] ${message}${extra}`;
          }),
        );
  return winston.createLogger({
    level: config.logLevel,
    defaultMeta: { service },
    format,
    // Tests stay quiet unless LOG_LEVEL asks otherwise.
    silent: config.nodeEnv === 'test' && !process.env.LOG_LEVEL,
    transports: [new winston.transports.Console()],
  });
}
