import Joi from 'joi';
import type { Cursor } from '@ams/db';
import type { CreateAgentInput, PatchAgentInput } from '@ams/accounts';
import { MEMORY_TYPES } from '@ams/memories';
import { metadata, nonBlank, pagination, ttlSeconds } from '../../validation/common.schemas';

/**
 * An agent as a path segment or a tool argument names it: its id or its name (client-compat §2.9).
 * Every name an agent can have passes (the name's own rule); one that names no agent is 404 later.
 */
export const agentNameOrId = nonBlank(255).description("The agent's id or its name");

const TTL_KEYS: readonly string[] = [...MEMORY_TYPES, 'default'];

/**
 * An agent's settings: `default_ttl_seconds` gives new memories of a type (or, under
 * `default`, of any type) an expiry unless the create names one. Replaced as a whole on update.
 */
const agentConfig = Joi.object({
  default_ttl_seconds: Joi.object()
    .pattern(Joi.string(), ttlSeconds)
    .custom((v: Record<string, number>, helpers) => {
      const bad = Object.keys(v).find((k) => !TTL_KEYS.includes(k));
      return bad ? helpers.error('ttl.key', { name: bad }) : v;
    })
    .messages({ 'ttl.key': `{{#label}}.{{#name}} is not a memory type: use one of ${TTL_KEYS.join(', ')}` }),
});

export type CreateAgentBody = CreateAgentInput;

/** Some clients send a caller-chosen `id` key (docs/clients.md, "Aliases"): it names the agent when `name` is absent. */
export const createAgentBody = Joi.object<CreateAgentBody & { id?: string }>({
  name: nonBlank(255).when('id', { is: Joi.exist(), otherwise: Joi.required() }),
  id: nonBlank(255),
  description: Joi.string().allow('').max(1_000),
  metadata: metadata.default({}),
  config: agentConfig,
}).custom(({ id, ...body }: CreateAgentBody & { id?: string }) => ({ ...body, name: body.name ?? id!, ...(id !== undefined ? { client_key: id } : {}) }));

export type PatchAgentBody = PatchAgentInput;

export const patchAgentBody = Joi.object<PatchAgentBody>({
  name: nonBlank(255),
  description: Joi.string().allow('').max(1_000),
  metadata,
  config: agentConfig,
})
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListAgentsQuery {
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listAgentsQuery = Joi.object<ListAgentsQuery>(pagination);
