import type { Migration } from './migration';

/**
 * A project exists either because it was registered (`POST /v1/projects`) or because a write named
 * its slug. Only the second kind may be registered afterwards: registration completes it in place
 * (same id, same memories); a registered project's slug stays taken. Rows default to registered;
 * the implicit creation says otherwise.
 */
export const projectRegistration: Migration = {
  name: '20261125_027_project_registration',
  up: [`ALTER TABLE projects ADD COLUMN registered boolean NOT NULL DEFAULT true`],
};
