import { oauthClientsRepository } from '@ams/db';
import type { AccountDeps } from '../deps';
import type { OAuthDeps } from './oauth-deps';
import { hashSecret } from './oauth-secrets';

export interface RegisteredClient {
  client_id: string;
  /** The hash of the client's secret (confidential clients), never the secret itself. */
  client_secret_hash?: string;
  client_secret_expires_at?: number;
  metadata: Record<string, unknown>;
}

/** Stores a dynamically registered client (RFC 7591); its secret, when it has one, only as a hash. */
export async function registerOAuthClient(
  deps: OAuthDeps,
  client: { clientId: string; secret?: string; secretExpiresAt?: number; metadata: Record<string, unknown> },
): Promise<void> {
  await oauthClientsRepository.insert(deps.db, {
    id: client.clientId,
    secretHash: client.secret ? hashSecret(client.secret) : null,
    secretExpiresAt: client.secretExpiresAt ? new Date(client.secretExpiresAt * 1000) : null,
    metadata: client.metadata,
  });
  deps.event('client_registered', { client_id: client.clientId, client_name: client.metadata.client_name, redirect_uris: client.metadata.redirect_uris });
}

export async function findOAuthClient(deps: AccountDeps, clientId: string): Promise<RegisteredClient | undefined> {
  if (clientId.length > 200) return undefined;
  const row = await oauthClientsRepository.find(deps.db, clientId);
  if (!row) return undefined;
  return {
    client_id: row.id,
    ...(row.secret_hash ? { client_secret_hash: row.secret_hash } : {}),
    ...(row.secret_expires_at ? { client_secret_expires_at: Math.floor(row.secret_expires_at.getTime() / 1000) } : {}),
    metadata: row.metadata,
  };
}
