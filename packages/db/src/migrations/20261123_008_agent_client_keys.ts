import type { Migration } from './migration';

export const agentClientKeys: Migration = {
  name: '20261123_008_agent_client_keys',
  up: [
    // A caller-chosen key given at agent create (docs/clients.md, "Aliases": `id: "my-agent"`), resolved
    // like a name wherever an agent is named; the agent's id stays its UUID.
    `ALTER TABLE agents ADD COLUMN client_key text`,
    `CREATE UNIQUE INDEX agents_account_client_key_key ON agents (account_id, client_key)
       WHERE deleted_at IS NULL AND client_key IS NOT NULL`,
  ],
};
