import fs from 'node:fs';
import { Config, ConfigError, secretBoxFor, VERSION } from '@ams/core';
import { webhookUserAgent } from '../signing';
import type { DispatcherSettings } from './dispatcher';

/** The dispatcher's settings from the validated config; the CA file is read once, here, and must be PEM. */
export function dispatcherSettings(config: Config): DispatcherSettings {
  return {
    timeoutMs: config.webhooks.timeoutMs,
    retryDelaysMs: config.webhooks.retryDelaysMs,
    allowLoopback: config.webhooks.allowLoopback,
    ca: config.webhooks.caFile ? readCaFile(config.webhooks.caFile) : undefined,
    concurrency: config.webhooks.concurrency,
    reconcileIntervalMs: config.webhooks.reconcileIntervalMs,
    userAgent: webhookUserAgent(VERSION),
    secrets: secretBoxFor(config),
  };
}

function readCaFile(file: string): string {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`WEBHOOK_CA_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); point it at a PEM certificate or unset it.`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(`WEBHOOK_CA_FILE: ${file} holds no PEM certificate ("-----BEGIN CERTIFICATE-----").`);
  }
  return pem;
}
