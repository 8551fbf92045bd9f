import { rateLimited, sendRequest, startLoopbackServer, type LoopbackServer } from '@parley/testing/loopback';
import { startLoopbackSocket } from '@parley/testing/loopback-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('startLoopbackServer', () => {
  it('answers from the route table by method and path, and records parsed bodies', async () => {
    server = await startLoopbackServer({
      routes: [
        { method: 'GET', path: '/only-get', answer: () => ({ text: 'got' }) },
        {
          path: /^\/bot([^/]+)\/(\w+)$/,
          answer: (req) => ({ json: { token: req.params[0], method: req.params[1] } }),
        },
        { path: '/echo', answer: (req) => ({ status: 201, json: req.body, headers: { 'x-seen': 'yes' } }) },
      ],
    });
    const json = { 'content-type': 'application/json' };
    const a = await sendRequest(`${server.url}/bot123:abc/getMe`, { body: '{"a":1}', headers: json });
    expect(JSON.parse(a.text)).toEqual({ token: '123:abc', method: 'getMe' });
    const b = await sendRequest(`${server.url}/echo?x=1`, {
      body: 'channel=C1&text=hi',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([b.status, b.headers['x-seen'], JSON.parse(b.text)]).toEqual([
      201,
      'yes',
      { channel: 'C1', text: 'hi' },
    ]);
    await sendRequest(`${server.url}/echo`, { body: 'plain', headers: { 'content-type': 'text/plain' } });
    await sendRequest(`${server.url}/echo`, { body: '{broken', headers: json });
    await sendRequest(`${server.url}/echo`);
    expect((await sendRequest(`${server.url}/only-get`, { method: 'GET' })).text).toBe('got');
    expect((await sendRequest(`${server.url}/only-get`)).status).toBe(404);
    expect(server.requestsTo('/echo').map((r) => r.body)).toEqual([
      { channel: 'C1', text: 'hi' },
      'plain',
      '{broken',
      undefined,
    ]);
    expect(server.requests[1]).toMatchObject({
      method: 'POST',
      path: '/echo',
      query: { x: '1' },
      params: [],
    });
    expect(server.requestsTo(/^\/bot/)[0]?.headers['content-type']).toBe('application/json');
  });

  it('refuses through the guard, plays scripted failures in order, and answers unknown paths', async () => {
    server = await startLoopbackServer({
      guard: (req) =>
        req.headers['authorization'] === 'Bearer t' ? undefined : { status: 401, json: { ok: false } },
      routes: [{ path: '/api/chat.postMessage', answer: () => ({ json: { ok: true } }) }],
      notFound: { status: 404, text: 'nope' },
    });
    const auth = { authorization: 'Bearer t' };
    const url = `${server.url}/api/chat.postMessage`;
    expect((await sendRequest(url)).status).toBe(401);
    server.failNext(/chat\.postMessage$/, rateLimited(7, { ok: false, error: 'ratelimited' }), {
      drop: true,
    });
    const limited = await sendRequest(url, { headers: auth });
    expect([limited.status, limited.headers['retry-after'], limited.text]).toEqual([
      429,
      '7',
      '{"ok":false,"error":"ratelimited"}',
    ]);
    await expect(sendRequest(url, { headers: auth })).rejects.toThrow();
    expect((await sendRequest(url, { headers: auth })).text).toBe('{"ok":true}');
    expect((await sendRequest(`${server.url}/other`, { headers: auth })).text).toBe('nope');
    expect(server.requests).toHaveLength(5);
  });

  it('answers 404 by default and 500 when a route throws', async () => {
    server = await startLoopbackServer({
      routes: [
        {
          path: '/boom',
          answer: () => {
            throw new Error('route failed');
          },
        },
      ],
    });
    expect((await sendRequest(`${server.url}/x`)).text).toBe('{"error":"not_found"}');
    const boom = await sendRequest(`${server.url}/boom`);
    expect([boom.status, boom.text]).toEqual([500, '{"error":"Error: route failed"}']);
  });

  it('holds a request until its answer settles, waits for requests, and tells a route when the client left', async () => {
    let release: (() => void) | undefined;
    const closed: string[] = [];
    server = await startLoopbackServer({
      routes: [
        {
          path: '/poll',
          answer: (_req, connection) => {
            connection.onClose(() => closed.push('poll'));
            return new Promise((resolve) => {
              release = () => resolve({ json: { ok: true, result: [] } });
            });
          },
        },
      ],
    });
    const waited = server.waitFor('/poll', 2);
    const first = sendRequest(`${server.url}/poll`);
    await server.waitFor('/poll');
    expect(await server.waitFor('/poll')).toBe(server.requests[0]);
    release?.();
    expect((await first).text).toBe('{"ok":true,"result":[]}');
    const second = sendRequest(`${server.url}/poll`).catch((error: unknown) => error);
    expect((await waited).path).toBe('/poll');
    await server.close(); // a held request is cut, and its late answer is dropped
    server = undefined;
    expect(await second).toBeInstanceOf(Error);
    release?.();
    expect(closed).toEqual(['poll', 'poll']);
  });

  it('rejects sendRequest when nothing listens', async () => {
    const gone = await startLoopbackServer({ routes: [] });
    await gone.close();
    await expect(sendRequest(`${gone.url}/x`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('startLoopbackSocket', () => {
  function connect(url: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  }

  it('accepts clients on its path, sends frames, and hands on the frames they send back', async () => {
    server = await startLoopbackServer({ routes: [] });
    const socket = startLoopbackSocket(server, { path: '/link', accept: (u) => u.query['ticket'] === 'ok' });
    const other = startLoopbackSocket(server, { path: '/other' });
    expect(socket.url).toBe(`ws://127.0.0.1:${server.port}/link`);
    await expect(connect(`${socket.url}?ticket=bad`)).rejects.toThrow(/401/);
    const connected = socket.connected();
    const client = await connect(`${socket.url}?ticket=ok`);
    await connected;
    await socket.connected();
    expect([socket.connections, other.connections]).toEqual([1, 0]);
    const got: string[] = [];
    client.on('message', (data) => {
      got.push(String(data));
      const frame = JSON.parse(String(data)) as { id?: string };
      client.send(frame.id === undefined ? 'not json' : JSON.stringify({ ack: frame.id }));
    });
    const ack = socket.nextFrame((frame) => (frame as { ack?: string }).ack === 'e2');
    const any = socket.nextFrame();
    socket.send({ id: 'e1' });
    socket.send({ id: 'e2' });
    expect(await any).toEqual({ ack: 'e1' });
    expect(await ack).toEqual({ ack: 'e2' });
    const text = socket.nextFrame();
    socket.send('{}');
    expect(await text).toBe('not json');
    expect(socket.received).toEqual([{ ack: 'e1' }, { ack: 'e2' }, 'not json']);
    expect(got).toEqual(['{"id":"e1"}', '{"id":"e2"}', '{}']);
    const gone = socket.disconnected();
    client.close();
    await gone;
    expect(socket.connections).toBe(0);
  });

  it('greets each client with its first frame as soon as it is connected', async () => {
    server = await startLoopbackServer({ routes: [] });
    const socket = startLoopbackSocket(server, {
      path: '/link',
      greeting: (upgrade) => ({ type: 'hello', ticket: upgrade.query['ticket'] }),
    });
    const greeted = (url: string): Promise<[WebSocket, string]> =>
      new Promise((resolve) => {
        const ws = new WebSocket(url);
        ws.once('message', (data) => resolve([ws, String(data)]));
      });
    const [one, hello] = await greeted(`${socket.url}?ticket=t1`);
    expect(JSON.parse(hello)).toEqual({ type: 'hello', ticket: 't1' });
    const text = startLoopbackSocket(server, { path: '/text', greeting: () => 'hi' });
    const plain = await greeted(text.url);
    expect(plain[1]).toBe('hi');
    const gone = Promise.all([socket.disconnected(), text.disconnected()]);
    one.close();
    plain[0].close();
    await gone;
  });

  it('terminates its clients when the server closes', async () => {
    server = await startLoopbackServer({ routes: [] });
    const socket = startLoopbackSocket(server, { path: '/link' });
    const client = await connect(socket.url);
    const closed = new Promise((resolve) => client.once('close', resolve));
    await server.close();
    server = undefined;
    await closed;
    expect(socket.connections).toBe(0);
  });
});
