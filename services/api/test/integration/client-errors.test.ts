import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/lib/client-errors';
import { createTestApp, TestApp } from '@ams/testing';

/** What Node's parser refuses before Express runs: answered with the envelope, not an empty 431. */
describe('requests the HTTP parser rejects', () => {
  let t: TestApp;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    server = http.createServer(t.app);
    answerClientErrors(server);
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
    const res = parse(await raw(`GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.body).toMatchObject({ type: 'request_header_too_large', code: 431 });
    expect(typeof res.body.request_id).toBe('string');
  });

  it('answers a malformed request line with 400 and the envelope', async () => {
    const res = parse(await raw('NOT A REQUEST\r\n\r\n'));
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.body).toMatchObject({ type: 'bad_request', code: 400 });
  });
});
