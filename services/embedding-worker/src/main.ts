import { loadConfig, runService } from '@ams/core';
import { SHUTDOWN_GRACE_MS, start } from '@ams/runtime';

/** The embedding worker process (split mode): what it runs is in @ams/runtime's start(). */
runService(SHUTDOWN_GRACE_MS, () => start('embedding-worker', loadConfig()));
