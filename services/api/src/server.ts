import { loadConfig, runService } from '@ams/core';
import { apiRole, SHUTDOWN_GRACE_MS, start } from '@ams/runtime';
import { importRecordRules } from './routes/import/import-record-rules';
import { serveApi } from './serve-api';

/** The API process: HTTP, plus the embedding worker and webhook dispatcher in-process in embedded mode. */
runService(SHUTDOWN_GRACE_MS, async () => {
  const config = loadConfig();
  return start(apiRole(config), config, { http: serveApi, importRules: importRecordRules });
});
