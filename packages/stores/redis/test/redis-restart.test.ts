// Redis killed (SIGKILL) and restarted on the same port mid-run, with an append-only file fsynced
// on every write so the data survives. Replica A reconnects slowly, replica B quickly: what B
// settles before A is back reaches A only through the resync re-read, not through pub/sub.
import { isParleyError } from '@parley/core';
import { shutdownProtocol } from '@parley/correlate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, type GateCluster, gateCluster } from './gates.js';
import type { RedisStore } from '../src/index.js';
import { type RedisServer, startRedis, until } from './helpers.js';
import { type LeadCluster, leadCluster } from './leads.js';

let server: RedisServer;
let gates: GateCluster | undefined;
let leads: LeadCluster | undefined;

beforeAll(async () => {
  server = await startRedis({ persistent: true });
});
afterEach(async () => {
  await gates?.closeAll();
  await leads?.closeAll();
  gates = undefined;
  leads = undefined;
  server.disconnectClients();
});
afterAll(async () => {
  await server.stop();
});

const fast = { retryStrategy: () => 50 } as const;
/** A reconnects only after B has settled; the test holds A's retries back until then. */
function slow(gateOpen: () => boolean) {
  return { retryStrategy: () => (gateOpen() ? 50 : 1_000) } as const;
}

/** Kills Redis, waits until every store saw its command connection drop, runs `during`, restarts. */
async function outage(stores: readonly RedisStore[], during: () => Promise<void>): Promise<void> {
  const lost = stores.map(
    (store) =>
      new Promise<void>((resolve) => {
        const off = store.on('connection', ({ connection, state }) => {
          if (connection !== 'commands' || state !== 'lost') return;
          off();
          resolve();
        });
      }),
  );
  await server.kill();
  await Promise.all(lost);
  await during();
  await server.start();
}

describe('confirmation gates across a Redis restart', () => {
  it('fails writes during the outage with typed errors, then the waiting replica learns the decision on resync', async () => {
    let aMayReconnect = false;
    gates = gateCluster(server);
    const a = await gates.start('a', { redis: slow(() => aMayReconnect) });
    const b = await gates.start('b', { redis: fast });
    const { id, decision } = await a.ask();
    await gates.follows(b, id);
    const resyncs: string[] = [];
    a.store.on('resync', ({ reason }) => resyncs.push(reason));

    await outage([a.store, b.store], async () => {
      // During the outage: the store refuses at once, typed, and nothing is applied.
      const during = await a.store.set('probe', 1).catch((error: unknown) => error);
      expect(isParleyError(during, 'connection_lost')).toBe(true);
      expect(during).toMatchObject({ details: { sent: false } });
      // A request made now is prompted, and its failed write is reported, not swallowed.
      const second = await a.ask('g2');
      await until(() => a.errors.length > 0, 20_000, 'the reported write failure');
      expect(a.errors.every((e) => isParleyError(e, 'connection_lost'))).toBe(true);
      second.decision.catch(() => {});
    });

    // B is back first and settles A's confirmation from a reply; A's subscriber is still down.
    await until(
      async () =>
        (await b.store
          .get('probe')
          .then(() => true)
          .catch(() => false)) === true,
      10_000,
      'B to reconnect',
    );
    expect(await b.say('g1', '确认')).toBe('intercepted');
    await until(async () => (await b.gate.reconcile(id))?.outcome === 'confirmed', 20_000, 'the record');
    expect(resyncs).toEqual([]); // A has not heard anything yet

    aMayReconnect = true;
    await expect(decision).resolves.toMatchObject({ id, outcome: 'confirmed', decidedBy: 'alice' });
    expect(resyncs).toEqual(['reconnected']);
    expect(await a.gate.authorize(id, ACTION)).toMatchObject({ ok: true });
  }, 30_000);
});

describe('correlators across a Redis restart', () => {
  it('resolves a pending request settled by another replica while this one was disconnected', async () => {
    let aMayReconnect = false;
    leads = leadCluster(server);
    const a = await leads.start('a', { redis: slow(() => aMayReconnect) });
    const b = await leads.start('b', { redis: fast });
    const reply = a.correlator.request(shutdownProtocol, { to: 'alice', payload: {} });
    await until(() => a.sent.length === 1, 20_000, 'the request to be stored and sent');
    const response = await leads.answer(a.sent[0]);

    await outage([a.store, b.store], async () => {
      // A reply that arrives during the outage is refused as store_failed (typed), not dropped silently.
      expect(await b.correlator.receive(response)).toMatchObject({ ok: false, code: 'store_failed' });
      expect(b.errors.map((e) => e.code)).toContain('store_failed');
    });
    await until(
      async () =>
        (await b.store
          .get('probe')
          .then(() => true)
          .catch(() => false)) === true,
      10_000,
      'B to reconnect',
    );
    // The transport redelivers the reply; B settles it while A is still disconnected.
    expect(await b.correlator.receive(response)).toMatchObject({ ok: true });
    expect(a.correlator.get('a_1')?.state).toBe('pending');

    aMayReconnect = true;
    await expect(reply).resolves.toMatchObject({ requestId: 'a_1', state: 'approved' });
    expect(a.settled).toMatchObject([{ request: { id: 'a_1' }, remote: true }]);
    expect(b.handled.map((r) => r.id)).toEqual(['a_1']);
  }, 30_000);
});
