import type { Migration } from './migration';

/**
 * A new memory's default expiry (agentDefaultExpiry) as a function of the agent, so the
 * create's INSERT calls it instead of holding a subquery: Citus refuses subqueries within an INSERT
 * ("subqueries are not supported within INSERT queries") but evaluates a function call. A SQL
 * function reading a table is never inlined back into a subquery. Same on PostgreSQL and PGlite.
 * now() plus the agent's config.default_ttl_seconds for the type (else its `default` entry); null
 * when it has neither.
 */
export const agentDefaultExpiryFunction: Migration = {
  name: '20261126_061_agent_default_expiry_function',
  up: [
    `CREATE FUNCTION agent_default_expiry(account uuid, agent uuid, kind text) RETURNS timestamptz LANGUAGE sql STABLE AS $$
       SELECT now() + make_interval(secs => coalesce(a.config -> 'default_ttl_seconds' ->> kind, a.config -> 'default_ttl_seconds' ->> 'default')::float8)
         FROM agents a WHERE a.account_id = account AND a.id = agent
     $$`,
  ],
};
