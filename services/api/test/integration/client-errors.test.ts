import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../src/http-server';
import { createTestApp, TestApp } from '@ams/testing';

/** What Node's parser refuses before Express runs, and what it would silently cut: answered with the envelope. */
describe('requests the HTTP parser rejects', () => {
  let t: TestApp;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    server = createHttpServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });

  const parse = (response: string) => {
    const [head, body] = response.split('\r\n\r\n');
    return { statusLine: head!.split('\r\n')[0], body: JSON.parse(body!) as Record<string, unknown> };
  };

  it('answers an oversized header with 431 and the error envelope', async () => {
    const res = parse(await raw(`GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`));
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.body).toMatchObject({ type: 'request_header_too_large', code: 431 });
    expect(typeof res.body.request_id).toBe('string');
  });

  it('answers a malformed request line with 400 and the envelope', async () => {
    const res = parse(await raw('NOT A REQUEST\r\n\r\n'));
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.body).toMatchObject({ type: 'bad_request', code: 400 });
  });

  const headers = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\r\n');

  it.each([
    ['3,000 short header fields (Node would drop all past its count)', `Host: x\r\nConnection: close\r\n${headers(3000, (i) => `X-H-${i}: v`)}`],
    ['3,000 long header fields (past the size limit)', `Host: x\r\nConnection: close\r\n${headers(3000, (i) => `X-Custom-Header-${i}: value-number-${i}`)}`],
    // Node's own client sends Host last: past the cap it is dropped, and the answer must not change.
    ['1,000 header fields with Host after them', `Connection: close\r\n${headers(1000, (i) => `X-H-${i}: v`)}\r\nHost: x`],
    ['1,000 header fields with Host first', `Host: x\r\nConnection: close\r\n${headers(1000, (i) => `X-H-${i}: v`)}`],
  ])('answers %s with 431 and the envelope', async (_what, lines) => {
    const res = parse(await raw(`GET /v1/health HTTP/1.1\r\n${lines}\r\n\r\n`));
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.body).toMatchObject({ type: 'request_header_too_large', code: 431 });
    expect(typeof res.body.request_id).toBe('string');
  });

  it('answers an HTTP/1.1 request without Host with 400 and the envelope; HTTP/1.0 needs none', async () => {
    const res = parse(await raw('GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.body).toMatchObject({ type: 'bad_request', code: 400, message: 'An HTTP/1.1 request must carry a Host header' });
    expect(parse(await raw('GET /v1/health HTTP/1.0\r\n\r\n')).statusLine).toMatch(/^HTTP\/1\.[01] 200 OK$/);
  });

  it('accepts a request just under the header-count cap', async () => {
    const response = await raw(`GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers(997, (i) => `X-H-${i}: v`)}\r\n\r\n`);
    expect(parse(response).statusLine).toBe('HTTP/1.1 200 OK');
  });

  it('answers an oversized URL with 431 and the envelope', async () => {
    const res = parse(await raw(`GET /v1/health?q=${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.body).toMatchObject({ type: 'request_header_too_large', code: 431 });
  });

  it.each([
    ['an unknown HTTP version', 'GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a space in the target', 'GET /v1/he alth HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['two Content-Length headers', 'POST /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}'],
    ['a header without a colon', 'GET /v1/health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n'],
    ['binary garbage', '\u0000\u0001\u0002\r\n\r\n'],
  ])('answers %s with 400 and the envelope', async (_what, request) => {
    const res = parse(await raw(request));
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.body).toMatchObject({ type: 'bad_request', code: 400, message: 'Malformed HTTP request' });
  });
});
