import fs from 'node:fs';
import { Config, VERSION } from '@ams/core';
import { webhookUserAgent } from '../signing';
import type { DispatcherSettings } from './dispatcher';

/** The dispatcher's settings from the validated config (the CA file is read once, here). */
export function dispatcherSettings(config: Config): DispatcherSettings {
  return {
    timeoutMs: config.webhooks.timeoutMs,
    retryDelaysMs: config.webhooks.retryDelaysMs,
    allowLoopback: config.webhooks.allowLoopback,
    ca: config.webhooks.caFile ? fs.readFileSync(config.webhooks.caFile, 'utf8') : undefined,
    concurrency: config.webhooks.concurrency,
    reconcileIntervalMs: config.webhooks.reconcileIntervalMs,
    userAgent: webhookUserAgent(VERSION),
  };
}
