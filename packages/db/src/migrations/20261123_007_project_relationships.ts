import type { Migration } from './migration';

export const projectRelationships: Migration = {
  name: '20261123_007_project_relationships',
  up: [
    // A directed, typed edge between two projects of one account (docs/clients.md, "Additional endpoints"). Edges of a
    // soft-deleted project are kept, like the rest of its data, and left out by the queries.
    `CREATE TABLE project_relationships (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       source_project_id uuid NOT NULL,
       target_project_id uuid NOT NULL,
       relationship_type text NOT NULL CHECK (char_length(relationship_type) BETWEEN 1 AND 100),
       metadata jsonb NOT NULL DEFAULT '{}',
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, id),
       FOREIGN KEY (account_id, source_project_id) REFERENCES projects (account_id, id),
       FOREIGN KEY (account_id, target_project_id) REFERENCES projects (account_id, id),
       CHECK (source_project_id <> target_project_id)
     )`,
    `CREATE UNIQUE INDEX project_relationships_edge_key
       ON project_relationships (account_id, source_project_id, target_project_id, relationship_type)`,
    // Incoming edges (dependents, impact analysis) are read by target.
    `CREATE INDEX project_relationships_target_idx ON project_relationships (account_id, target_project_id)`,
  ],
};
