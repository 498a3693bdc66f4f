import type { Migration } from './migration';

export const memoriesAndEntities: Migration = {
  name: '20261122_003_memories_entities',
  up: [
    `CREATE TABLE memories (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       agent_id uuid NOT NULL,
       content text NOT NULL,
       content_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
       metadata jsonb NOT NULL DEFAULT '{}',
       memory_type text NOT NULL CHECK (memory_type IN
         ('fact', 'event', 'insight', 'task', 'preference', 'entity_reference', 'system')),
       visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'confidential')),
       importance real NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
       tier text NOT NULL CHECK (tier IN ('hot', 'warm', 'cold')),
       tier_explicit boolean NOT NULL DEFAULT false,
       archived boolean NOT NULL DEFAULT false,
       session_id uuid,
       project_id uuid,
       client_id text,
       embedding vector(384),
       embedding_model text,
       embedding_status text NOT NULL DEFAULT 'ready'
         CHECK (embedding_status IN ('pending', 'processing', 'ready', 'failed')),
       embedding_error text,
       embedding_attempts integer NOT NULL DEFAULT 0,
       embedding_started_at timestamptz,
       -- v2 creates: what to do once the embedding is ready.
       dedup_threshold real,
       webhook_url text,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       deleted_at timestamptz,
       PRIMARY KEY (account_id, id),
       FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id),
       FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, id),
       FOREIGN KEY (account_id, project_id) REFERENCES projects (account_id, id)
     )`,
    // Semantic search: cosine distance over the HNSW graph (iterative scans keep filtered results full).
    `CREATE INDEX memories_embedding_hnsw_idx ON memories USING hnsw (embedding vector_cosine_ops)`,
    `CREATE INDEX memories_content_tsv_idx ON memories USING gin (content_tsv)`,
    `CREATE INDEX memories_metadata_idx ON memories USING gin (metadata jsonb_path_ops)`,
    `CREATE INDEX memories_account_created_idx ON memories (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    `CREATE INDEX memories_account_agent_created_idx ON memories (account_id, agent_id, created_at DESC, id DESC)
       WHERE deleted_at IS NULL`,
    `CREATE INDEX memories_account_session_idx ON memories (account_id, session_id) WHERE session_id IS NOT NULL`,
    `CREATE INDEX memories_account_project_idx ON memories (account_id, project_id) WHERE project_id IS NOT NULL`,
    `CREATE UNIQUE INDEX memories_account_client_id_key ON memories (account_id, client_id) WHERE client_id IS NOT NULL`,
    // The reconciler's scan: only rows still waiting for an embedding.
    `CREATE INDEX memories_embedding_pending_idx ON memories (embedding_status, updated_at)
       WHERE embedding_status IN ('pending', 'processing')`,
    `CREATE TABLE entities (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       name text NOT NULL,
       entity_type text NOT NULL CHECK (entity_type IN ('person', 'organization', 'technology', 'project',
         'product', 'location', 'document', 'metric', 'event', 'skill', 'concept', 'other')),
       metadata jsonb NOT NULL DEFAULT '{}',
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       deleted_at timestamptz,
       PRIMARY KEY (account_id, id)
     )`,
    // Extracted entities are upserted: same name (case-insensitive) and type is the same entity.
    `CREATE UNIQUE INDEX entities_account_type_name_key ON entities (account_id, entity_type, lower(name))
       WHERE deleted_at IS NULL`,
    `CREATE INDEX entities_account_lower_name_idx ON entities (account_id, lower(name)) WHERE deleted_at IS NULL`,
    `CREATE INDEX entities_account_created_idx ON entities (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    `CREATE TABLE entity_memory_links (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       entity_id uuid NOT NULL,
       memory_id uuid NOT NULL,
       relationship text NOT NULL DEFAULT 'mentioned_in',
       relevance_score real NOT NULL DEFAULT 1.0,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, entity_id, memory_id, relationship),
       FOREIGN KEY (account_id, entity_id) REFERENCES entities (account_id, id),
       FOREIGN KEY (account_id, memory_id) REFERENCES memories (account_id, id)
     )`,
    `CREATE INDEX entity_memory_links_memory_idx ON entity_memory_links (account_id, memory_id)`,
  ],
};
