import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import winston from 'winston';
import type { LoadGauge } from '../../src/middleware/backpressure';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

/**
 * Requests held in progress by a client that sends its headers and then only part of its body: the
 * server has accepted them and waits, exactly like requests stuck behind slow work.
 */
describe('backpressure', () => {
  let t: TestApp;
  let acct: TestAccount;
  let server: http.Server;
  let port: number;
  const sockets: net.Socket[] = [];

  const serve = async (env: Record<string, string>) => {
    t = await createTestApp(env);
    acct = await createAccount(t.ctx);
    server = http.createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  /** Sends a request whose body never completes; resolves with whatever the server answers. */
  const stalled = (key = acct.key) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    let data = '';
    socket.on('data', (c) => (data += c.toString()));
    const answered = new Promise<string>((resolve) => {
      socket.on('data', () => data.includes('\r\n\r\n') && data.includes('}') && resolve(data));
      socket.on('close', () => resolve(data));
    });
    socket.write(
      `POST /v1/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"content":`,
    );
    return { socket, answered };
  };

  const request = () => t.request().get('/v1/memories?limit=1').set(bearer(acct.key));

  it('answers 503 service_unavailable with Retry-After at once beyond the in-flight bound when nothing may wait, and serves again once there is room', async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '2', MAX_QUEUED_REQUESTS: '0', REQUEST_TIMEOUT_MS: '0' });
    expect((await request()).status).toBe(200);
    const load = t.app.locals.load as LoadGauge;
    const held = [stalled()];
    await waitFor(() => load.inFlight === 1);
    held.push(stalled());
    await waitFor(() => load.inFlight === 2);
    const res = await request();
    expectError(res, 503, 'service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    const metrics = await t.ctx.metrics.registry.metrics();
    expect(metrics).toMatch(/ams_admission_refusals_total\{reason="queue_full"\} 1/);
    expect(metrics).toMatch(/ams_admission_in_flight 2/);
    // Health is never shed.
    expect((await t.request().get('/v1/health')).status).toBe(200);

    for (const h of held) h.socket.destroy();
    await waitFor(() => load.inFlight === 0);
    expect((await request()).status).toBe(200);
  });

  it('logs refusals summed, one warning a second with their counts by reason, and no request line for each', async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '0', REQUEST_TIMEOUT_MS: '0', LOG_LEVEL: 'info' });
    const lines: Array<Record<string | symbol, unknown>> = [];
    t.ctx.logger.clear().add(new winston.transports.Stream({ stream: new Writable({ objectMode: true, write: (info, _enc, done) => (lines.push(info), done()) }) }));
    t.ctx.logger.silent = false;
    const load = t.app.locals.load as LoadGauge;
    const held = stalled();
    await waitFor(() => load.inFlight === 1);
    for (let i = 0; i < 3; i++) expectError(await request(), 503, 'service_unavailable');
    await waitFor(() => lines.some((l) => l.message === 'requests refused (503, overload)'), 3_000);
    const summaries = lines.filter((l) => l.message === 'requests refused (503, overload)');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ refused: { queue_full: 3 }, window_ms: 1000 });
    expect(summaries[0]![Symbol.for('level') as never]).toBe('warn');
    expect(lines.filter((l) => l.message === 'request' && l.status === 503)).toEqual([]);
    held.socket.destroy();
    await waitFor(() => load.inFlight === 0);
    expect((await request()).status).toBe(200);
    expect(lines.filter((l) => l.message === 'request')).toEqual([expect.objectContaining({ status: 200 })]);
  });

  /** Holds `n` requests in progress. */
  const hold = async (n: number) => {
    const load = t.app.locals.load as LoadGauge;
    const held = [];
    for (let i = 0; i < n; i++) {
      held.push(stalled());
      await waitFor(() => load.inFlight === i + 1);
    }
    return held;
  };
  const settled = <T>(p: PromiseLike<T>) => {
    const state: { value?: T } = {};
    void Promise.resolve(p).then((v) => (state.value = v));
    return state;
  };

  /** A whole GET on a socket of its own (no client set-up in between, so two are sent ms apart); resolves with its status. */
  const quickGet = (key = acct.key) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    let data = '';
    const status = new Promise<number>((resolve) => {
      socket.on('data', (c) => {
        data += c.toString();
        if (data.includes('\r\n')) resolve(Number(data.split(' ')[1]));
      });
      socket.on('close', () => resolve(0));
    });
    socket.write(`GET /v1/memories?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    return status;
  };

  it('lets a burst beyond the in-flight bound wait for a slot, first come first served, instead of refusing it', async () => {
    // A budget no loaded test machine reaches: this is about waiting, not the budget.
    await serve({ MAX_IN_FLIGHT_REQUESTS: '1', MAX_QUEUE_DELAY_MS: '20000', REQUEST_TIMEOUT_MS: '0' });
    const load = t.app.locals.load as LoadGauge;
    const held = await hold(1);
    const first = settled(quickGet());
    await waitFor(() => load.queued() === 1);
    const second = settled(quickGet());
    await waitFor(() => load.queued() === 2);
    held[0]!.socket.destroy();
    await waitFor(() => first.value !== undefined);
    expect(first.value).toBe(200);
    await waitFor(() => second.value !== undefined);
    expect(second.value).toBe(200);
  });

  it('refuses at once a request beyond the bounded queue, and serves the one waiting', async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '1', MAX_QUEUE_DELAY_MS: '20000', REQUEST_TIMEOUT_MS: '0' });
    const load = t.app.locals.load as LoadGauge;
    const held = await hold(1);
    const waiting = settled(quickGet());
    await waitFor(() => load.queued() === 1);
    const res = await request();
    expect(expectError(res, 503, 'service_unavailable').message).toMatch(/too many requests waiting/);
    expect(res.headers['retry-after']).toBe('1');
    expect(waiting.value).toBeUndefined();
    held[0]!.socket.destroy();
    await waitFor(() => waiting.value !== undefined);
    expect(waiting.value).toBe(200);
  });

  it("serves another account's request at once while a busy account holds every slot and has more waiting (a borrowed slot)", async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '1', MAX_QUEUE_DELAY_MS: '20000', REQUEST_TIMEOUT_MS: '0' });
    const other = await createAccount(t.ctx);
    const load = t.app.locals.load as LoadGauge;
    const held = await hold(1);
    const waiting = settled(quickGet());
    await waitFor(() => load.queued() === 1);
    expect(await quickGet(other.key)).toBe(200);
    expect(waiting.value).toBeUndefined();
    held[0]!.socket.destroy();
    await waitFor(() => waiting.value !== undefined);
    expect(waiting.value).toBe(200);
  });

  it("makes room in a full queue for another account's request: the busiest account's newest waiter is refused instead", async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '2', MAX_QUEUE_DELAY_MS: '20000', REQUEST_TIMEOUT_MS: '0' });
    const other = await createAccount(t.ctx);
    const load = t.app.locals.load as LoadGauge;
    const held = await hold(1);
    const first = settled(quickGet());
    const second = settled(quickGet());
    await waitFor(() => load.queued() === 2);
    // The other account's first request borrows a slot; its second, at its share, must wait.
    held.push(stalled(other.key));
    await waitFor(() => load.inFlight === 2);
    const light = settled(quickGet(other.key));
    await waitFor(() => second.value !== undefined);
    expect(second.value).toBe(503);
    expect(load.queued()).toBe(2);
    for (const h of held) h.socket.destroy();
    await waitFor(() => first.value !== undefined && light.value !== undefined);
    expect([first.value, light.value]).toEqual([200, 200]);
  });

  it('keeps every slot through a refusal, in embedded mode too (its event loop reads and refuses while both run)', async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '2', MAX_QUEUED_REQUESTS: '1', MAX_QUEUE_DELAY_MS: '20000', REQUEST_TIMEOUT_MS: '0' });
    const load = t.app.locals.load as LoadGauge;
    expect((await request()).status).toBe(200); // the queue learns a service time
    const held = await hold(2);
    const waiting = settled(quickGet());
    await waitFor(() => load.queued() === 1);
    expectError(await request(), 503, 'service_unavailable'); // the queue is full
    expect(load.slots()).toBe(2);
    expect(load.full()).toBe(true);
    held[0]!.socket.destroy(); // one slot frees: the waiter starts beside the other held request
    await waitFor(() => waiting.value !== undefined);
    expect(waiting.value).toBe(200);
    held[1]!.socket.destroy();
  });

  it('refuses a request still waiting for a slot past MAX_QUEUE_DELAY_MS', async () => {
    await serve({ MAX_IN_FLIGHT_REQUESTS: '1', MAX_QUEUE_DELAY_MS: '300', REQUEST_TIMEOUT_MS: '0' });
    await hold(1);
    const started = Date.now();
    const res = await request();
    expect(expectError(res, 503, 'service_unavailable').message).toMatch(/no slot within 300 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('answers a request that outlives its deadline with 503 and the envelope', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '1500' });
    const { answered } = stalled();
    const raw = await answered;
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'service_unavailable', code: 503 });
    expect(String(body.message)).toMatch(/did not complete within 1500 ms/);
  });
});
