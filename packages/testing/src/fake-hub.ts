import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface FakeHub {
  url: string;
  /** Every request: path and Range header. */
  requests: { path: string; range?: string }[];
  /** The next request for these files sends half the body, then drops the connection. */
  dropOnce: Set<string>;
  /** These files are served with a flipped byte (same length), under the true checksum. */
  corrupt: Set<string>;
  close(): Promise<void>;
}

/**
 * A local model hub in Hugging Face's layout: `GET /<model>/resolve/main/<file>`. Weights (.onnx)
 * answer 302 to a "CDN" path with X-Linked-Size and X-Linked-Etag (sha256), as the hub does for
 * LFS files; small files are served directly with their git blob sha1 as ETag. Range is honoured.
 */
export async function startFakeHub(model: string, sourceDir: string): Promise<FakeHub> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(path.relative(sourceDir, full).split(path.sep).join('/'), fs.readFileSync(full));
    }
  };
  walk(sourceDir);
  const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  const gitSha1 = (b: Buffer) => crypto.createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');
  const byHash = new Map([...files].map(([file, body]) => [sha256(body), file]));

  const hub: Omit<FakeHub, 'url' | 'close'> = { requests: [], dropOnce: new Set(), corrupt: new Set() };

  const send = (req: http.IncomingMessage, res: http.ServerResponse, file: string, headers: Record<string, string>) => {
    let body = files.get(file)!;
    if (hub.corrupt.has(file)) {
      body = Buffer.from(body);
      body[body.length >> 1]! ^= 0xff;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start > body.length) {
      res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
      return;
    }
    const slice = body.subarray(start);
    const drop = hub.dropOnce.delete(file);
    res.writeHead(range ? 206 : 200, {
      ...(drop ? { Connection: 'close' } : {}),
      ...headers,
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(slice.length),
      ...(range ? { 'Content-Range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (drop) {
      // FIN after the half, so the client surely holds those bytes when the body ends short.
      res.write(slice.subarray(0, slice.length >> 1), () => res.socket?.end());
      return;
    }
    res.end(slice);
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://hub');
    hub.requests.push({ path: url.pathname, range: req.headers.range });
    const prefix = `/${model}/resolve/main/`;
    if (url.pathname.startsWith('/cdn/')) {
      const file = byHash.get(url.pathname.slice('/cdn/'.length));
      if (!file) return void res.writeHead(404).end();
      // A CDN's own ETag is not the content's checksum; the client must not rely on it.
      return send(req, res, file, { ETag: '"cdn-etag-1"' });
    }
    const file = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : undefined;
    const body = file ? files.get(file) : undefined;
    if (!file || !body) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Entry not found');
    if (file.endsWith('.onnx')) {
      res.writeHead(302, {
        Location: `/cdn/${sha256(body)}`,
        'X-Linked-Size': String(body.length),
        'X-Linked-Etag': `"${sha256(body)}"`,
        ETag: `"${sha256(body)}"`,
      });
      return void res.end();
    }
    send(req, res, file, { ETag: `"${gitSha1(body)}"` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...hub,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
