import type { Request } from 'express';
import Joi, { Schema } from 'joi';
import { agentIdFromPath, agentStats, listAgents, type Scope } from '@ams/accounts';
import { createEntity, linkEntity } from '@ams/entities';
import { adoptPattern, buildContext, checkDecisions, createDecision, createSession, endSession, searchPatterns } from '@ams/knowledge';
import { createMemory, deleteMemory, getMemory, listMemories, listMemoryHistory, patchMemory, restoreMemoryVersion, searchMemories } from '@ams/memories';
import type { AppContext, AuthContext } from '../context';
import { store } from '../domain-deps';
import { memoryDeps, requestResources } from '../memory-deps';
import { buildContextBody } from '../routes/context/context.schemas';
import { checkDecisionsBody, createDecisionBody } from '../routes/decisions/decisions.schemas';
import { createEntityBody, linkBody } from '../routes/entities/entities.schemas';
import { agentNameOrId, listAgentsQuery } from '../routes/agents/agents.schemas';
import { historyQuery } from '../routes/memory-history/memory-history.schemas';
import { compileMetadataFilter, createMemoryBody, listMemoriesQuery, patchMemoryBody, searchBody } from '../routes/memories/memories.schemas';
import { adoptBody, searchPatternsBody } from '../routes/patterns/patterns.schemas';
import { createSessionBody, endSessionBody } from '../routes/sessions/sessions.schemas';
import { listResponse, uuid } from '../validation/common.schemas';
import { validate } from '../validation/validate';

/** `req` is the /mcp request: the memory domain takes its deps (and logger) from it, as the routes do. */
type Run<T> = (ctx: AppContext, auth: AuthContext, args: T, req: Request) => Promise<unknown>;

/**
 * An MCP tool over one service call. `input` is the route's own joi schema (with the path id added
 * where the route has one): it gives the tool's JSON Schema; `run` validates the arguments with it.
 */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: Schema;
  /** Takes the arguments as the client sent them; validates them with `input`. */
  run: Run<Record<string, unknown>>;
}

/** A tool whose `run` gets its arguments as the route's schema types and validates them. */
function tool<T>(def: Omit<ToolDef, 'input' | 'run'> & { input: Joi.ObjectSchema<T>; run: Run<T> }): ToolDef {
  return { ...def, run: (ctx, auth, args, req) => def.run(ctx, auth, validate<T>(def.input, args), req) };
}

const idField = (what: string) => ({ id: uuid.required().description(`The ${what}'s id`) });
const idOnly = (what: string) => Joi.object<{ id: string }>(idField(what));
/** The route's body with the path's id beside it: the tool's arguments. */
/**
 * A tool over a route with an id in its path and a body: the arguments are the body with `id`
 * beside it; each is validated by its own schema, so the route's own rules (e.g. min(1)) hold.
 */
function toolWithId<T>(
  def: Omit<ToolDef, 'input' | 'run'> & { of: string; body: Joi.ObjectSchema<T>; run: (ctx: AppContext, auth: AuthContext, id: string, body: T, req: Request) => Promise<unknown> },
): ToolDef {
  const { of, body, run, ...rest } = def;
  const ids = idOnly(of);
  return {
    ...rest,
    input: Joi.object(idField(of)).concat(body),
    run: (ctx, auth, args, req) => {
      const { id } = validate<{ id: string }>(ids, args);
      const { id: _id, ...fields } = args;
      return run(ctx, auth, id, validate<T>(body, fields), req);
    },
  };
}

export const TOOLS: ToolDef[] = [
  tool({
    name: 'memory_store',
    title: 'Store a memory',
    description: 'Store something worth remembering (a fact, preference, event, insight or task) for an agent. `supersedes` (a memory id) replaces a memory that stopped being true: it stays findable with as_of or include_superseded.',
    scope: 'write',
    input: createMemoryBody,
    run: async (ctx, auth, args, req) => (await createMemory(memoryDeps(ctx, req), auth, args)).memory,
  }),
  tool({
    name: 'memory_search',
    title: 'Search memories',
    description: 'Find memories by meaning (semantic), words (keyword) or both (hybrid), optionally for one agent and filtered by metadata. `as_of` (Unix seconds or ISO 8601) answers what was known to be true then; `recency_half_life` (seconds) favours recent memories.',
    scope: 'read',
    input: searchBody,
    run: (ctx, auth, args, req) => {
      return searchMemories(memoryDeps(ctx, req), auth, { ...args, metadata_filter: compileMetadataFilter(args.metadata_filter) });
    },
  }),
  tool({
    name: 'memory_get',
    title: 'Get a memory',
    description: 'Fetch one memory by id.',
    scope: 'read',
    input: idOnly('memory'),
    run: (ctx, auth, args, req) => getMemory(memoryDeps(ctx, req), auth, args.id),
  }),
  tool({
    name: 'memory_list',
    title: 'List memories',
    description: 'List memories newest first, optionally for one agent or memory type; pass next_cursor back as cursor for the next page.',
    scope: 'read',
    input: listMemoriesQuery,
    run: async (ctx, auth, args, req) => {
      const page = await listMemories(memoryDeps(ctx, req), auth, args);
      return listResponse(page, page.data, true);
    },
  }),
  toolWithId({
    name: 'memory_update',
    title: 'Update a memory',
    description: "Change a memory's content, metadata, importance, tier, type, visibility, archived flag, validity window (valid_from, valid_until) or tier pin (tier_pinned: false lets re-tiering move it).",
    scope: 'write',
    of: 'memory',
    body: patchMemoryBody,
    run: (ctx, auth, id, body, req) => patchMemory(memoryDeps(ctx, req), auth, id, body),
  }),
  tool({
    name: 'memory_delete',
    title: 'Delete a memory',
    description: 'Delete a memory (it can be restored through the API).',
    scope: 'delete',
    input: idOnly('memory'),
    run: async (ctx, auth, args, req) => {
      await deleteMemory(memoryDeps(ctx, req), auth, args.id);
      return { id: args.id, deleted: true };
    },
  }),
  toolWithId({
    name: 'memory_history',
    title: "A memory's history",
    description: 'Every version of a memory, newest first: what changed (before and after), who changed it and when; also for a deleted memory.',
    scope: 'read',
    of: 'memory',
    body: historyQuery,
    run: async (ctx, auth, id, query, req) => {
      const page = await listMemoryHistory(memoryDeps(ctx, req), auth, id, query);
      return listResponse(page, page.data, true);
    },
  }),
  tool({
    name: 'memory_restore_version',
    title: 'Restore a memory to a version',
    description: 'Bring a memory back to what it was at one of its versions (see memory_history); the restore is a new version.',
    scope: 'write',
    input: Joi.object<{ id: string; version: number }>({
      ...idField('memory'),
      version: Joi.number().integer().min(1).required().description('The version to restore'),
    }),
    run: (ctx, auth, args, req) => restoreMemoryVersion(memoryDeps(ctx, req), auth, args.id, args.version),
  }),
  tool({
    name: 'context_build',
    title: 'Build context',
    description: 'Build a prompt-ready context from the memories most relevant to a query, within a size budget; `as_of` builds it as it would have been then.',
    scope: 'read',
    input: buildContextBody,
    run: (ctx, auth, args, req) => buildContext(requestResources(ctx, req), auth, args),
  }),
  tool({
    name: 'session_start',
    title: 'Start a session',
    description: 'Start a working session for an agent; memories stored with its id belong to it.',
    scope: 'write',
    input: createSessionBody,
    run: (ctx, auth, args) => createSession(store(ctx), auth, args),
  }),
  toolWithId({
    name: 'session_end',
    title: 'End a session',
    description: 'End a session, optionally with a summary.',
    scope: 'write',
    of: 'session',
    body: endSessionBody,
    run: (ctx, auth, id, body) => endSession(store(ctx), auth, id, body),
  }),
  tool({
    name: 'decision_record',
    title: 'Record a decision',
    description: 'Record a decision with its rationale and the alternatives considered.',
    scope: 'write',
    input: createDecisionBody,
    run: (ctx, auth, args) => createDecision(store(ctx), auth, args),
  }),
  tool({
    name: 'decision_check',
    title: 'Check decisions',
    description: 'Find earlier decisions similar to a proposal before deciding again.',
    scope: 'read',
    input: checkDecisionsBody,
    run: (ctx, auth, args) => checkDecisions(store(ctx), auth, args),
  }),
  tool({
    name: 'pattern_search',
    title: 'Search patterns',
    description: 'Find reusable patterns (approaches, snippets) relevant to a query.',
    scope: 'read',
    input: searchPatternsBody,
    run: (ctx, auth, args) => searchPatterns(store(ctx), auth, args),
  }),
  toolWithId({
    name: 'pattern_adopt',
    title: 'Adopt a pattern',
    description: 'Record that a project adopts a pattern.',
    scope: 'write',
    of: 'pattern',
    body: adoptBody,
    run: (ctx, auth, id, body) => adoptPattern(store(ctx), auth, id, body.project),
  }),
  tool({
    name: 'entity_create',
    title: 'Create an entity',
    description: 'Create a knowledge-graph entity (a person, technology, project, concept...).',
    scope: 'write',
    input: createEntityBody,
    run: (ctx, auth, args) => createEntity(store(ctx), auth, args),
  }),
  tool({
    name: 'entity_link',
    title: 'Link an entity to a memory',
    description: 'Link an entity to a memory with a relationship.',
    scope: 'write',
    input: linkBody,
    run: (ctx, auth, args) => linkEntity(store(ctx), auth, args),
  }),
  tool({
    name: 'agent_list',
    title: 'List agents',
    description: 'List the agents of this account with their counts.',
    scope: 'read',
    input: listAgentsQuery,
    run: async (ctx, auth, args) => {
      const page = await listAgents(store(ctx), auth, args);
      return listResponse(page, page.data, true);
    },
  }),
  tool({
    name: 'agent_stats',
    title: 'Agent statistics',
    description: "An agent's memory counts by type and tier, and its activity. The agent is named by its id or its name.",
    scope: 'read',
    // The rule GET /v1/agents/{id}/stats holds its path to: an id or any agent name.
    input: Joi.object<{ id: string }>({ id: agentNameOrId.required() }),
    run: async (ctx, auth, args) => agentStats(store(ctx), auth, await agentIdFromPath(store(ctx), auth, args.id)),
  }),
];
