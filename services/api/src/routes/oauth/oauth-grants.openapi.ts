import Joi from 'joi';
import { isoTime, listOf, nullableIso, RouteDocs, shape, strings, uuidOut } from '../../openapi/route-docs';
import { listGrantsQuery } from './oauth-grants.schemas';

const grant = shape({
  object: Joi.string().valid('oauth_grant'),
  id: uuidOut,
  client_id: Joi.string(),
  client_name: Joi.string().allow(null),
  redirect_hosts: strings,
  scopes: strings,
  agent_id: uuidOut.allow(null),
  resource: Joi.string(),
  created_at: isoTime,
  last_used_at: nullableIso,
});

export const oauthGrantsOpenApi: RouteDocs = {
  'GET /v1/oauth/grants': {
    summary: 'List the OAuth grants of the account: each connected MCP client, its scopes, its last use',
    query: listGrantsQuery,
    responses: { 200: { description: 'A page of live grants, newest first', schema: listOf(grant) } },
  },
  'DELETE /v1/oauth/grants/:id': {
    summary: "Revoke an OAuth grant: the client's tokens stop working at their next request",
    responses: { 204: { description: 'Revoked' } },
  },
};
