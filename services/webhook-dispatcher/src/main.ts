// Entry point of the webhook dispatcher; delivery lands with the webhooks work.
import { createLogger, loadConfig } from '@ams/core';

const config = loadConfig();
const logger = createLogger('webhook-dispatcher', config);
logger.error('the webhook dispatcher is not implemented yet');
process.exit(1);
