import type { Migration } from './migration';

/**
 * The agent a create's INSERT names, checked live in that statement: the agent's id while it is
 * live, else null, which memories.agent_id (NOT NULL) refuses. A create can then take its agent's
 * id from the process's cache (AGENT_CACHE_MS) and still never store a memory under an agent
 * deleted meanwhile, with no statement of its own to look the agent up. A function, not a
 * subquery, for the reason agent_default_expiry is one (Citus refuses subqueries within an INSERT).
 */
export const liveAgentFunction: Migration = {
  name: '20261128_072_live_agent_function',
  up: [
    `CREATE FUNCTION live_agent(account uuid, agent uuid) RETURNS uuid LANGUAGE sql STABLE AS $$
       SELECT a.id FROM agents a WHERE a.account_id = account AND a.id = agent AND a.deleted_at IS NULL
     $$`,
  ],
};
