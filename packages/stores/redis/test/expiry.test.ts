// Timeouts are enforced when the replica that started them is gone: the survivors race to expire
// an overdue entry, one wins (compare-and-set), and nothing throws.
import { MAX_TTL_MS } from '@parley/core';
import type { ConfirmDecision } from '@parley/confirm';
import { shutdownProtocol } from '@parley/correlate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/index.js';
import { type GateCluster, gateCluster } from './gates.js';
import { type RedisServer, startRedis, until } from './helpers.js';
import { type LeadCluster, leadCluster, TIMEOUT_MS } from './leads.js';

let server: RedisServer;
let gates: GateCluster | undefined;
let leads: LeadCluster | undefined;

beforeAll(async () => {
  server = await startRedis();
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

describe('a confirmation whose replica is gone', () => {
  it('is timed out once by the surviving replicas, and the session is told once', async () => {
    gates = gateCluster(server, { timeoutMs: 60_000 });
    const a = await gates.start('a');
    const b = await gates.start('b');
    const c = await gates.start('c');
    const { id } = await a.ask();
    await gates.follows(b, id);
    await gates.follows(c, id);
    await a.crash();

    gates.advance(59_999);
    expect([...b.decided, ...c.decided]).toEqual([]);
    gates.advance(1); // the deadline: from now on no answer counts
    gates.advance(1_000); // followers time it out a second later (the owner would go first), together
    await until(() => b.decided.length === 1 && c.decided.length === 1, 20_000, 'both to settle');
    const [fromB, fromC] = [b.decided[0], c.decided[0]] as [ConfirmDecision, ConfirmDecision];
    expect(fromB).toMatchObject({ id, outcome: 'timed_out', reason: 'timeout' });
    expect(fromC).toEqual(fromB); // the loser adopted the winner's decision
    const decisions: ConfirmDecision[] = [];
    for await (const decision of b.gate.audit()) decisions.push(decision);
    expect(decisions).toEqual([fromB]);
    await until(() => b.sent('g1').length + c.sent('g1').length === 1, 20_000, 'the notice');
    expect([...b.sent('g1'), ...c.sent('g1')][0]).toContain('timed out');
    expect([...b.errors, ...c.errors]).toEqual([]);
    expect([...b.gate.pending(), ...c.gate.pending()]).toEqual([]);
    expect(await b.store.getEntry(`confirm:pending:${id}`)).toBeUndefined();
  });

  it('is not timed out by a survivor before its deadline, and a late reply is not forwarded', async () => {
    gates = gateCluster(server, { timeoutMs: 60_000 });
    const a = await gates.start('a');
    const b = await gates.start('b');
    const { id } = await a.ask();
    await gates.follows(b, id);
    await a.crash();
    gates.advance(30_000);
    expect(await b.say('g1', '确认')).toBe('intercepted');
    await until(() => b.decided.length === 1, 20_000, 'the decision');
    expect(b.decided[0]).toMatchObject({ id, outcome: 'confirmed' });
    gates.advance(60_000);
    expect(b.sent('g1')).toEqual([]); // no timeout notice after the decision
  });
});

describe('a request whose correlator is gone', () => {
  it('is expired once by the survivors that took it over, and its handler runs once', async () => {
    leads = leadCluster(server);
    const a = await leads.start('a');
    a.correlator.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await until(() => a.sent.length === 1, 20_000, 'the request to be stored and sent');
    await a.crash();
    const b = await leads.start('b');
    const c = await leads.start('c');
    expect(await b.correlator.restore()).toBe(1);
    expect(await c.correlator.restore()).toBe(1);

    leads.advance(TIMEOUT_MS);
    await until(() => b.settled.length === 1 && c.settled.length === 1, 20_000, 'both to settle');
    const settled = [...b.settled, ...c.settled];
    expect(settled.map((e) => e.request.state)).toEqual(['expired', 'expired']);
    expect(settled.filter((e) => !e.remote)).toHaveLength(1); // one won the compare-and-set
    expect(b.handled.length + c.handled.length).toBe(1);
    expect([...b.errors, ...c.errors]).toEqual([]);
    expect(b.correlator.stats().pending + c.correlator.stats().pending).toBe(0);
  });
});

describe('ttl range', () => {
  it('[STORE-5] refuses ttlMs 1e16 and 1e300 with invalid_timeout instead of writing an unreadable or vanished value', async () => {
    const redis = server.client();
    const store = createRedisStore({ redis, prefix: 'ttl-range:' });
    await expect(store.set('big', 1, { ttlMs: 1e16 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    await expect(store.set('huge', 1, { ttlMs: 1e300 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    expect(await redis.exists('ttl-range:data:big', 'ttl-range:data:huge')).toBe(0);
    await store.set('longest', 1, { ttlMs: MAX_TTL_MS });
    expect(await store.get('longest')).toBe(1);
    expect(await redis.pttl('ttl-range:data:longest')).toBeGreaterThan(MAX_TTL_MS - 60_000);
    await store.close();
  });
});
