import type { Migration } from './migration';

/**
 * Projects created by a write before registration was recorded: a write's project carries only its
 * slug (as its name) and defaults. A project registered with nothing but its slug looks the same;
 * for it, a later registration fills it in instead of answering 409, which loses nothing.
 */
export const implicitProjectsUnregistered: Migration = {
  name: '20261125_028_implicit_projects_unregistered',
  up: [
    `UPDATE projects SET registered = false
      WHERE name = slug AND description IS NULL AND repo_url IS NULL AND stack = '{}'::jsonb AND metadata = '{}'::jsonb`,
  ],
};
