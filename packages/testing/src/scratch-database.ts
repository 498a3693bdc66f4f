import { createPostgresDatabase, dropPostgresDatabase } from '@ams/db';

/**
 * A PostgreSQL database of a test's own, beside the run's (DATABASE_URL), for tests that change
 * what is service-wide (the active embedding model, a re-embed): dropped by `drop`. Migrated by the app.
 */
export async function createScratchDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const runUrl = new URL(process.env.DATABASE_URL!);
  const admin = new URL(runUrl);
  admin.pathname = '/postgres';
  const name = `${runUrl.pathname.slice(1)}_${label}`;
  const url = await createPostgresDatabase(admin.toString(), name);
  return { url, drop: () => dropPostgresDatabase(admin.toString(), name) };
}
