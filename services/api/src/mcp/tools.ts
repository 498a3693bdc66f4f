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
import { historyQuery, HistoryQueryParams } from '../routes/memory-history/memory-history.schemas';
import { compileMetadataFilter, createMemoryBody, listMemoriesQuery, patchMemoryBody, SearchBody, searchBody } from '../routes/memories/memories.schemas';
import { adoptBody, searchPatternsBody } from '../routes/patterns/patterns.schemas';
import { createSessionBody, endSessionBody } from '../routes/sessions/sessions.schemas';
import { listResponse, uuid } from '../validation/common.schemas';
import { validate } from '../validation/validate';

type Args = Record<string, unknown>;
/** `req` is the /mcp request: the memory domain takes its deps (and logger) from it, as the routes do. */
type Run = (ctx: AppContext, auth: AuthContext, args: Args, req: Request) => Promise<unknown>;

/**
 * An MCP tool over one service call. `input` is the route's own joi schema (with the path id added
 * where the route has one): it gives the tool's JSON Schema and validates the arguments.
 */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: Schema;
  run: Run;
}

const withId = (body: Schema, what: string) =>
  Joi.object({ id: uuid.required().description(`The ${what}'s id`) }).concat(body as Joi.ObjectSchema);
const idOnly = (what: string) => Joi.object({ id: uuid.required().description(`The ${what}'s id`) });

/** The body of an id + body tool, validated again alone so the route's own rules (e.g. min(1)) hold. */
const bodyOf = <T>(schema: Schema, { id: _id, ...rest }: Args) => validate<T>(schema, rest);

export const TOOLS: ToolDef[] = [
  {
    name: 'memory_store',
    title: 'Store a memory',
    description: 'Store something worth remembering (a fact, preference, event, insight or task) for an agent. `supersedes` (a memory id) replaces a memory that stopped being true: it stays findable with as_of or include_superseded.',
    scope: 'write',
    input: createMemoryBody,
    run: async (ctx, auth, args, req) => (await createMemory(memoryDeps(ctx, req), auth, args as never)).memory,
  },
  {
    name: 'memory_search',
    title: 'Search memories',
    description: 'Find memories by meaning (semantic), words (keyword) or both (hybrid), optionally for one agent and filtered by metadata. `as_of` (Unix seconds or ISO 8601) answers what was known to be true then; `recency_half_life` (seconds) favours recent memories.',
    scope: 'read',
    input: searchBody,
    run: (ctx, auth, args, req) => {
      const body = args as unknown as SearchBody;
      return searchMemories(memoryDeps(ctx, req), auth, { ...body, metadata_filter: compileMetadataFilter(body.metadata_filter) });
    },
  },
  {
    name: 'memory_get',
    title: 'Get a memory',
    description: 'Fetch one memory by id.',
    scope: 'read',
    input: idOnly('memory'),
    run: (ctx, auth, args, req) => getMemory(memoryDeps(ctx, req), auth, args.id as string),
  },
  {
    name: 'memory_list',
    title: 'List memories',
    description: 'List memories newest first, optionally for one agent or memory type; pass next_cursor back as cursor for the next page.',
    scope: 'read',
    input: listMemoriesQuery,
    run: async (ctx, auth, args, req) => {
      const page = await listMemories(memoryDeps(ctx, req), auth, args as never);
      return listResponse(page, page.data, true);
    },
  },
  {
    name: 'memory_update',
    title: 'Update a memory',
    description: "Change a memory's content, metadata, importance, tier, type, visibility, archived flag, validity window (valid_from, valid_until) or tier pin (tier_pinned: false lets re-tiering move it).",
    scope: 'write',
    input: withId(patchMemoryBody, 'memory'),
    run: (ctx, auth, args, req) => patchMemory(memoryDeps(ctx, req), auth, args.id as string, bodyOf(patchMemoryBody, args)),
  },
  {
    name: 'memory_delete',
    title: 'Delete a memory',
    description: 'Delete a memory (it can be restored through the API).',
    scope: 'delete',
    input: idOnly('memory'),
    run: async (ctx, auth, args, req) => {
      await deleteMemory(memoryDeps(ctx, req), auth, args.id as string);
      return { id: args.id, deleted: true };
    },
  },
  {
    name: 'memory_history',
    title: "A memory's history",
    description: 'Every version of a memory, newest first: what changed (before and after), who changed it and when; also for a deleted memory.',
    scope: 'read',
    input: withId(historyQuery, 'memory'),
    run: async (ctx, auth, args, req) => {
      const page = await listMemoryHistory(memoryDeps(ctx, req), auth, args.id as string, bodyOf<HistoryQueryParams>(historyQuery, args));
      return listResponse(page, page.data, true);
    },
  },
  {
    name: 'memory_restore_version',
    title: 'Restore a memory to a version',
    description: 'Bring a memory back to what it was at one of its versions (see memory_history); the restore is a new version.',
    scope: 'write',
    input: Joi.object({
      id: uuid.required().description("The memory's id"),
      version: Joi.number().integer().min(1).required().description('The version to restore'),
    }),
    run: (ctx, auth, args, req) => restoreMemoryVersion(memoryDeps(ctx, req), auth, args.id as string, args.version as number),
  },
  {
    name: 'context_build',
    title: 'Build context',
    description: 'Build a prompt-ready context from the memories most relevant to a query, within a size budget; `as_of` builds it as it would have been then.',
    scope: 'read',
    input: buildContextBody,
    run: (ctx, auth, args, req) => buildContext(requestResources(ctx, req), auth, args as never),
  },
  {
    name: 'session_start',
    title: 'Start a session',
    description: 'Start a working session for an agent; memories stored with its id belong to it.',
    scope: 'write',
    input: createSessionBody,
    run: (ctx, auth, args) => createSession(store(ctx), auth, args as never),
  },
  {
    name: 'session_end',
    title: 'End a session',
    description: 'End a session, optionally with a summary.',
    scope: 'write',
    input: withId(endSessionBody, 'session'),
    run: (ctx, auth, args) => endSession(store(ctx), auth, args.id as string, bodyOf(endSessionBody, args)),
  },
  {
    name: 'decision_record',
    title: 'Record a decision',
    description: 'Record a decision with its rationale and the alternatives considered.',
    scope: 'write',
    input: createDecisionBody,
    run: (ctx, auth, args) => createDecision(store(ctx), auth, args as never),
  },
  {
    name: 'decision_check',
    title: 'Check decisions',
    description: 'Find earlier decisions similar to a proposal before deciding again.',
    scope: 'read',
    input: checkDecisionsBody,
    run: (ctx, auth, args) => checkDecisions(store(ctx), auth, args as never),
  },
  {
    name: 'pattern_search',
    title: 'Search patterns',
    description: 'Find reusable patterns (approaches, snippets) relevant to a query.',
    scope: 'read',
    input: searchPatternsBody,
    run: (ctx, auth, args) => searchPatterns(store(ctx), auth, args as never),
  },
  {
    name: 'pattern_adopt',
    title: 'Adopt a pattern',
    description: 'Record that a project adopts a pattern.',
    scope: 'write',
    input: withId(adoptBody, 'pattern'),
    run: (ctx, auth, args) => adoptPattern(store(ctx), auth, args.id as string, bodyOf<{ project: string }>(adoptBody, args).project),
  },
  {
    name: 'entity_create',
    title: 'Create an entity',
    description: 'Create a knowledge-graph entity (a person, technology, project, concept...).',
    scope: 'write',
    input: createEntityBody,
    run: (ctx, auth, args) => createEntity(store(ctx), auth, args as never),
  },
  {
    name: 'entity_link',
    title: 'Link an entity to a memory',
    description: 'Link an entity to a memory with a relationship.',
    scope: 'write',
    input: linkBody,
    run: (ctx, auth, args) => linkEntity(store(ctx), auth, args as never),
  },
  {
    name: 'agent_list',
    title: 'List agents',
    description: 'List the agents of this account with their counts.',
    scope: 'read',
    input: listAgentsQuery,
    run: async (ctx, auth, args) => {
      const page = await listAgents(store(ctx), auth, args as never);
      return listResponse(page, page.data, true);
    },
  },
  {
    name: 'agent_stats',
    title: 'Agent statistics',
    description: "An agent's memory counts by type and tier, and its activity. The agent is named by its id or its name.",
    scope: 'read',
    // The rule GET /v1/agents/{id}/stats holds its path to: an id or any agent name.
    input: Joi.object({ id: agentNameOrId.required() }),
    run: async (ctx, auth, args) => agentStats(store(ctx), auth, await agentIdFromPath(store(ctx), auth, args.id as string)),
  },
];
