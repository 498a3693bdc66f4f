// Entry point of the embedding worker; the job handlers land with the asynchronous ingestion work.
import { createLogger, loadConfig } from '@ams/core';

const config = loadConfig();
const logger = createLogger('embedding-worker', config);
logger.error('the embedding worker is not implemented yet');
process.exit(1);
