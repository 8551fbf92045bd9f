// Cross-replica settlement through Redis with the public APIs of @parley/correlate and
// @parley/confirm: each replica has its own Redis connection; they share one application prefix.
import { createManualClock, createSequentialIds } from '@parley/core';
import { createRecordingTransport } from '@parley/testing';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '@parley/correlate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, buttonToken, setup } from '../../../protocols/confirm/test/helpers.js';
import { createRedisStore, type RedisStore } from '../src/index.js';
import { type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterEach(() => {
  server.disconnectClients(); // clients made by the test, so no reconnect timer outlives it
});
afterAll(async () => {
  await server.stop();
});

/** Two stores on two connections, one prefix: two replicas of one application. */
function twoReplicas(): [RedisStore, RedisStore] {
  const prefix = `settle${++n}:`;
  return [
    createRedisStore({ redis: server.client(), prefix }),
    createRedisStore({ redis: server.client(), prefix }),
  ];
}

describe('@parley/correlate on Redis', () => {
  it('settles a request on the replica that sent it when the reply reaches the other replica', async () => {
    const [storeA, storeB] = twoReplicas();
    const clock = createManualClock({ now: 1_000 });
    const wire = createRecordingTransport<CorrelateMessage, 'lead' | 'alice'>({
      endpoints: ['lead', 'alice'],
      delivery: 'manual',
    });
    const base = { clock, protocols: [shutdownProtocol] };
    // The correlators watch their prefix; wait until both subscriptions are live.
    const live = Promise.all([storeA, storeB].map((s) => new Promise((resolve) => s.on('resync', resolve))));
    const leadA = createCorrelator({
      self: 'lead',
      generateId: createSequentialIds('a_'),
      store: storeA,
      send: wire.endpoint('lead').send,
      ...base,
    });
    const leadB = createCorrelator({
      self: 'lead',
      generateId: createSequentialIds('b_'),
      store: storeB,
      send: wire.endpoint('lead').send,
      ...base,
    });
    const alice = createCorrelator({
      self: 'alice',
      generateId: createSequentialIds('al_'),
      send: wire.endpoint('alice').send,
      ...base,
    });
    wire.endpoint('alice').listen((message) => alice.receive(message));
    wire.endpoint('lead').listen((message) => leadB.receive(message)); // the webhook delivers replies to replica B
    await live;
    const settledOnB: unknown[] = [];
    leadB.on('settled', (e) => settledOnB.push(e));

    const reply = leadA.request(shutdownProtocol, { to: 'alice', payload: { reason: 'scale down' } });
    await until(() => wire.waiting.length === 1, 20_000, 'the request on the wire');
    await wire.deliverNext();
    alice.respond('a_1', { approve: true, reason: 'idle' });
    await until(() => wire.waiting.length === 1, 20_000, 'the response on the wire');
    const response = await wire.deliverNext(); // the webhook delivered it to replica B
    expect(response?.message).toMatchObject({ kind: 'response', to: 'lead', request_id: 'a_1' });

    await expect(reply).resolves.toMatchObject({ requestId: 'a_1', state: 'approved', reason: 'idle' });
    expect(
      ((await storeA.getEntry('correlate:lead:a_1'))?.value as { data?: unknown } | undefined)?.data,
    ).toMatchObject({ state: 'approved' });
    leadA.close();
    leadB.close();
    alice.close();
    await storeA.close();
    await storeB.close();
  });
});

describe('@parley/confirm on Redis', () => {
  it('lets replica B settle, from a card click, the confirmation replica A is waiting on', async () => {
    const [storeA, storeB] = twoReplicas();
    const clock = createManualClock({ now: 1_000_000 });
    const a = await setup({ secret: 's' }, { clock, store: storeA });
    const b = await setup(
      { secret: 's', generateId: createSequentialIds('cfm_b') },
      { clock, store: storeB },
    );
    const { decision, id } = await a.ask();
    const token = buttonToken(a.channel, 'confirm');
    const decidedOnB = new Promise((resolve) => b.gate.on('decided', resolve));
    await b.channel.click('g1', 'alice', { confirmation: token });
    await decidedOnB;
    expect(b.decided).toMatchObject([{ id, outcome: 'confirmed', reason: 'card' }]);
    expect(await a.gate.reconcile(id)).toMatchObject({ outcome: 'confirmed' });
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
    expect(await a.gate.authorize(id, ACTION)).toMatchObject({ ok: true });
    await storeA.close();
    await storeB.close();
  });

  it('records exactly one outcome when both replicas get a click at once', async () => {
    const [storeA, storeB] = twoReplicas();
    const clock = createManualClock({ now: 1_000_000 });
    const a = await setup({ secret: 's' }, { clock, store: storeA });
    const b = await setup(
      { secret: 's', generateId: createSequentialIds('cfm_b') },
      { clock, store: storeB },
    );
    const { decision, id } = await a.ask();
    const confirm = buttonToken(a.channel, 'confirm');
    const cancel = buttonToken(a.channel, 'cancel');
    await Promise.all([
      a.channel.click('g1', 'alice', { confirmation: cancel }),
      b.channel.click('g1', 'alice', { confirmation: confirm }),
    ]);
    const final = await decision;
    expect(['confirmed', 'cancelled']).toContain(final.outcome);
    expect(await b.gate.reconcile(id)).toMatchObject({ outcome: final.outcome });
    expect(await a.gate.reconcile(id)).toMatchObject({ outcome: final.outcome });
    await storeA.close();
    await storeB.close();
  });
});
