import {
  oauthClientsRepository,
  oauthCodesRepository,
  oauthGrantsRepository,
  oauthRequestsRepository,
  oauthTokensRepository,
  signInAttemptsRepository,
} from '../../../src/repositories/oauth.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, AT, OAUTH_CLIENT as CLIENT, OAUTH_GRANT as GRANT, OAUTH_REQUEST as REQUEST } from '../fixtures';

const RESOURCE = 'https://memory.example.com/mcp';

export const oauthClients = entriesOf('oauthClientsRepository', oauthClientsRepository, {
  insert: [{ args: [{ id: 'client-new', secretHash: null, secretExpiresAt: null, metadata: { client_name: 'Example host', redirect_uris: ['https://host.example.com/callback'] } }] }],
  find: [{ args: [CLIENT] }],
});

export const oauthRequests = entriesOf('oauthRequestsRepository', oauthRequestsRepository, {
  insert: [
    {
      args: [
        {
          client_id: CLIENT,
          redirect_uri: 'https://host.example.com/callback',
          code_challenge: 'challenge',
          scopes: ['read', 'write'],
          state: 'state-1',
          resource: RESOURCE,
          browser_hash: 'browser-hash',
          csrf_token: 'csrf-token',
          expires_at: AT,
        },
      ],
    },
  ],
  find: [{ args: [REQUEST] }],
  signedIn: [{ args: [REQUEST, ACCOUNT] }],
  take: [{ args: [REQUEST] }],
});

export const oauthGrants = entriesOf('oauthGrantsRepository', oauthGrantsRepository, {
  insert: [{ args: [{ accountId: ACCOUNT, clientId: CLIENT, scopes: ['read'], agentId: AGENT, resource: RESOURCE }] }],
  find: [{ args: [ACCOUNT, GRANT] }],
  list: [{ args: [ACCOUNT, { limit: 20, offset: 0 }] }],
  revoke: [{ args: [ACCOUNT, GRANT, 'revoked by the account'] }],
  touch: [{ args: [ACCOUNT, GRANT] }],
});

export const oauthCodes = entriesOf('oauthCodesRepository', oauthCodesRepository, {
  insert: [
    {
      args: [
        { code_hash: 'code-hash', account_id: ACCOUNT, grant_id: GRANT, client_id: CLIENT, redirect_uri: 'https://host.example.com/callback', code_challenge: 'challenge', expires_at: AT },
      ],
    },
  ],
  findByHash: [{ args: ['code-hash'] }],
  use: [{ args: ['code-hash'] }],
});

export const oauthTokens = entriesOf('oauthTokensRepository', oauthTokensRepository, {
  insert: [{ args: [[{ token_hash: 'token-hash', kind: 'access', account_id: ACCOUNT, grant_id: GRANT, expires_at: AT }]] }],
  findWithGrant: [{ args: ['token-hash'] }],
  deleteExpired: [{ args: [ACCOUNT, GRANT] }],
  revoke: [{ args: ['token-hash'] }],
});

export const signInAttempts = entriesOf('signInAttemptsRepository', signInAttemptsRepository, {
  hit: [{ args: ['account:me@example.com', 60] }],
  sweep: [{ args: [900] }],
  clear: [{ args: ['account:me@example.com'] }],
});
