// @parley/correlate instances of one party as replicas on one Redis: the reply reaches another
// replica, is delivered twice, or arrives after the requester restarted.
import { isParleyError } from '@parley/core';
import { type CorrelateMessage, shutdownProtocol } from '@parley/correlate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis, until } from './helpers.js';
import { type LeadCluster, leadCluster } from './leads.js';

let server: RedisServer;
let cluster: LeadCluster;

beforeAll(async () => {
  server = await startRedis();
});
afterEach(async () => {
  await cluster?.closeAll();
  server.disconnectClients();
});
afterAll(async () => {
  await server.stop();
});

const PAYLOAD = { to: 'alice', payload: { reason: 'scale down' } } as const;

describe('a reply that reaches the other replica', () => {
  it('resolves the promise on the replica that sent the request, with no manual step', async () => {
    cluster = leadCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    const reply = a.correlator.request(shutdownProtocol, PAYLOAD);
    await until(() => a.sent.length === 1, 20_000, 'the request to be sent');
    const response = await cluster.answer(a.sent[0]);

    expect(await b.correlator.receive(response)).toMatchObject({ ok: true });
    await expect(reply).resolves.toMatchObject({ requestId: 'a_1', state: 'approved', reason: 'idle' });
    expect(b.settled).toMatchObject([{ request: { id: 'a_1', state: 'approved' }, remote: false }]);
    await until(() => a.settled.length === 1, 20_000, 'A to hear it');
    expect(a.settled).toMatchObject([{ request: { id: 'a_1', state: 'approved' }, remote: true }]);
    expect(b.handled.map((r) => r.id)).toEqual(['a_1']); // handlers run where it settled
    expect(a.handled).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});

describe('one reply delivered to both replicas', () => {
  it('settles each request exactly once', async () => {
    cluster = leadCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    for (let round = 1; round <= 20; round++) {
      const reply = a.correlator.request(shutdownProtocol, PAYLOAD);
      await until(() => a.sent.length === round, 20_000, 'the request to be sent');
      const response = await cluster.answer(a.sent[round - 1], round % 2 === 0);
      const results = await Promise.all([a.correlator.receive(response), b.correlator.receive(response)]);
      const settledHere = [...a.settled, ...b.settled].filter(
        (e) => e.request.id === `a_${round}` && !e.remote,
      );
      expect(settledHere).toHaveLength(1);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.find((r) => !r.ok)).toMatchObject({ ok: false, code: 'duplicate' });
      await expect(reply).resolves.toMatchObject({ state: round % 2 === 0 ? 'approved' : 'rejected' });
    }
    expect(a.handled.length + b.handled.length).toBe(20);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});

describe('the requesting replica restarted before the reply', () => {
  async function crashedWithOneRequest(): Promise<{ id: string; request: CorrelateMessage }> {
    const a = await cluster.start('a');
    const reply = a.correlator.request(shutdownProtocol, PAYLOAD);
    reply.catch(() => {}); // the promise dies with the process
    await until(() => a.sent.length === 1, 20_000, 'the request to be sent (after it was stored)');
    const request = a.sent[0] as CorrelateMessage;
    await a.crash();
    return { id: request.request_id, request };
  }

  it('runs the handler registered by protocol name on the new instance that took the request over', async () => {
    cluster = leadCluster(server);
    const { id, request } = await crashedWithOneRequest();
    const a2 = await cluster.start('a2');
    expect(await a2.correlator.restore()).toBe(1);
    const response = await cluster.answer(request);

    expect(await a2.correlator.receive(response)).toMatchObject({ ok: true });
    expect(a2.handled).toMatchObject([{ id, state: 'approved', response: { approve: true } }]);
    expect(a2.correlator.get(id)).toMatchObject({ state: 'approved' });
  });

  it('runs the handler on whichever replica the reply reaches, once', async () => {
    cluster = leadCluster(server);
    const { id, request } = await crashedWithOneRequest();
    const a2 = await cluster.start('a2');
    const b = await cluster.start('b');
    await a2.correlator.restore();
    const response = await cluster.answer(request);

    expect(await b.correlator.receive(response)).toMatchObject({ ok: true });
    await until(() => a2.settled.length === 1, 20_000, 'the new instance to hear it');
    expect(b.handled.map((r) => r.id)).toEqual([id]);
    expect(a2.handled).toEqual([]);
    expect(a2.settled).toMatchObject([{ request: { id, state: 'approved' }, remote: true }]);
  });

  it('refuses the reply as late once the request expired', async () => {
    cluster = leadCluster(server);
    const { id, request } = await crashedWithOneRequest();
    const a2 = await cluster.start('a2');
    await a2.correlator.restore();
    cluster.advance(30_001);
    await until(() => a2.settled.length === 1, 20_000, 'the expiry');
    const response = await cluster.answer(request);
    expect(await a2.correlator.receive(response)).toMatchObject({ ok: false, code: 'late' });
    expect(a2.handled).toMatchObject([{ id, state: 'expired' }]);
    const waited = await a2.correlator.waitFor(id).catch((error: unknown) => error);
    expect(isParleyError(waited, 'timeout')).toBe(true);
  });
});
