import type { Command } from 'commander';
import { print } from '../cli-context';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (DATABASE_URL, or the embedded store in DATA_DIR)')
    .action(async (_o: unknown, cmd: Command) => {
      // Loaded here: only this command needs the database drivers. require, not import(): under tsx's
      // CommonJS hook an import() goes to Node's own ESM loader, which cannot load TypeScript.
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { loadConfig } = require('@ams/core') as typeof import('@ams/core');
      const { createDatabase, migrateLatest } = require('@ams/db') as typeof import('@ams/db');
      /* eslint-enable @typescript-eslint/no-require-imports */
      const db = await createDatabase(loadConfig());
      try {
        const applied = await migrateLatest(db.knex);
        print(cmd, { applied }, (r) => (r.applied.length ? r.applied.map((m) => `applied ${m}`).join('\n') : 'up to date'));
      } finally {
        await db.close();
      }
    });
}
