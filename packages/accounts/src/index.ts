// Accounts and who acts for them: registration, API keys and their scopes, agents, the quota.
export * from './deps';
export * from './scopes';
export * from './passwords';
export * from './api-key-tokens';
export * from './api-key-cache';
export * from './api-keys.service';
export * from './accounts.service';
export * from './agents.service';
export * from './agent-path';
export * from './quota.service';
export * from './oauth/oauth-deps';
export * from './oauth/oauth-secrets';
export * from './oauth/oauth-clients.service';
export * from './oauth/sign-in.service';
export * from './oauth/authorization.service';
export * from './oauth/tokens.service';
export * from './oauth/external-issuer';
