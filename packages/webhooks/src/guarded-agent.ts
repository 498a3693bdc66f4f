import dns from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { addressRefusal, type AddressPolicy } from './address-policy';

/**
 * An https.Agent that refuses to connect to non-public addresses (see address-policy.ts).
 *
 * Why not request-filtering-agent: it does exactly this (same technique, ranges from ipaddr.js),
 * but 3.x is ESM-only, and jest on Node 20 cannot load an ESM-only package from CommonJS tests
 * ("Must use import to load ES Module") without changing the shared jest config; Node's own
 * loader is not reachable from inside jest's sandbox either. So the guard lives here, small and
 * tested, with no dependency.
 *
 * How: the check runs inside the connection itself, not before the request, so there is no gap
 * between checking and connecting (no DNS rebinding):
 * - an IP-literal host is checked before the socket is created (Node does no lookup for those);
 * - a hostname gets a `lookup` hook: every address it resolves to is checked, and the socket then
 *   connects to exactly the checked address(es). One non-public address refuses the host, so a
 *   name that mixes public and private records cannot win by ordering or happy-eyeballs.
 */

const ADDRESS_REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
  constructor(host: string, reason: string) {
    super(`refused to connect to ${host}: ${reason} (webhook receivers must be public)`);
    this.name = 'AddressRefusedError';
  }
}

export const isAddressRefusedError = (error: unknown): error is AddressRefusedError =>
  error instanceof Error && (error as { code?: unknown }).code === ADDRESS_REFUSED;

/** The shape of dns.lookup with `all: true`; injectable so tests can fake DNS answers. */
export type ResolveAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

function guardedLookup(policy: AddressPolicy, resolveAll: ResolveAll = dns.lookup): net.LookupFunction {
  return (hostname, options, callback) => {
    // Always resolve all addresses, so every candidate is checked whatever the caller asked for.
    resolveAll(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      for (const { address } of addresses) {
        const refusal = addressRefusal(address, policy);
        if (refusal) return callback(new AddressRefusedError(hostname, refusal), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, '');
      }
      return callback(null, first.address, first.family);
    });
  };
}

export interface GuardedAgentOptions extends https.AgentOptions {
  policy: AddressPolicy;
  resolveAll?: ResolveAll;
}

export class GuardedHttpsAgent extends https.Agent {
  private readonly policy: AddressPolicy;
  private readonly resolveAll: ResolveAll | undefined;

  constructor({ policy, resolveAll, ...agentOptions }: GuardedAgentOptions) {
    super(agentOptions);
    this.policy = policy;
    this.resolveAll = resolveAll;
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = options.host ?? options.hostname ?? 'localhost';
    const refusal = options.socketPath
      ? 'unix sockets are not allowed'
      : net.isIP(host) !== 0
        ? addressRefusal(host, this.policy)
        : null;
    if (refusal) {
      // Never connect. http.Agent passes a callback that forwards an error to the request's
      // 'error' event; without one, the caller gets a socket that errors on the next tick.
      const error = new AddressRefusedError(host, refusal);
      const socket = new net.Socket();
      if (callback) {
        callback(error, socket);
        socket.destroy();
      } else {
        socket.destroy(error);
      }
      return socket;
    }
    return super.createConnection({ ...options, lookup: guardedLookup(this.policy, this.resolveAll) }, callback);
  }
}
