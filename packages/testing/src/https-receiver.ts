import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';

/**
 * A real HTTPS webhook receiver on 127.0.0.1 for tests, with a self-signed certificate made in the
 * test run (valid for localhost, 127.0.0.1 and ::1). Deliver to it with
 * `deliverOnce(..., { allowLoopback: true, ca: receiver.ca })`.
 *
 *   const receiver = await startHttpsReceiver({ handler: (_req, res) => res.writeHead(500).end() });
 *   ... deliver to receiver.url ...
 *   await receiver.waitForRequests(1);
 *   expect(receiver.requests[0].headers['x-service-event']).toBe('memory.created');
 *   await receiver.close();
 */

interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. "/webhook". */
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received, for signature checks. */
  rawBody: Buffer;
  receivedAt: Date;
}

/**
 * Answers one request; the body has already been read into `received`. Default: 200 "ok". May be
 * async; a thrown error or rejection answers 500.
 * `res.on('close')` fires when the client gives up, so a deliberately slow handler can stop waiting.
 */
export type ReceiverHandler = (received: ReceivedRequest, res: ServerResponse) => unknown;

export interface HttpsReceiver {
  /** https://127.0.0.1:<port>/webhook */
  url: string;
  port: number;
  /** PEM of the certificate; pass it as the delivery's `ca`. */
  ca: string;
  /** Every request in arrival order (also those the handler failed). */
  requests: ReceivedRequest[];
  /** Resolves once at least `count` requests have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

export interface ReceiverOptions {
  handler?: ReceiverHandler;
  path?: string;
}

interface TlsMaterial {
  key: string;
  cert: string;
}

let material: TlsMaterial | null = null;

/** One certificate per test process: RSA generation is the slow part. */
function testTlsMaterial(): TlsMaterial {
  if (!material) {
    const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      days: 2,
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' }, // DNS
            { type: 7, ip: '127.0.0.1' }, // IP
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    material = { key: pems.private, cert: pems.cert };
  }
  return material;
}

const okHandler: ReceiverHandler = (_received, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

export async function startHttpsReceiver(options: ReceiverOptions = {}): Promise<HttpsReceiver> {
  const { key, cert } = testTlsMaterial();
  const handler = options.handler ?? okHandler;
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();

  const server = https.createServer({ key, cert }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: new Date(),
      };
      requests.push(received);
      for (const wake of waiters) wake();
      Promise.resolve()
        .then(() => handler(received, res))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://127.0.0.1:${port}${options.path ?? '/webhook'}`,
    port,
    ca: cert,
    requests,
    waitForRequests(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (requests.length < count) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(requests.slice());
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`expected ${count} webhook request(s), got ${requests.length} in ${timeoutMs}ms`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
