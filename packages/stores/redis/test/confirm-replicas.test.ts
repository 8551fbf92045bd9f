// @parley/confirm gates as replicas of one bot on one Redis: each has its own bus, channel,
// clock and connections; they meet only through the store (Lua compare-and-set, pub/sub watch).
import type { ConfirmDecision, ResumeHandler } from '@parley/confirm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, type GateCluster, gateCluster } from './gates.js';
import { type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
let cluster: GateCluster;

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

async function decisionsIn(replica: { gate: { audit(): AsyncIterable<ConfirmDecision> } }) {
  const out: ConfirmDecision[] = [];
  for await (const decision of replica.gate.audit()) out.push(decision);
  return out;
}

describe('a reply that lands on the other replica', () => {
  it('settles the promise the requester replica is waiting on, with no reconcile call', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    const { id, decision } = await a.ask();
    await cluster.follows(b, id);

    expect(await b.say('g1', '确认')).toBe('intercepted');
    const final = await decision;
    expect(final).toMatchObject({ id, outcome: 'confirmed', reason: 'reply', decidedBy: 'alice' });
    expect(await a.gate.authorize(final, ACTION)).toMatchObject({ ok: true });
    expect(await b.gate.authorize(final, ACTION)).toEqual({ ok: false, code: 'already_used' });
    expect(b.bus.size.inbound).toBe(0); // never forwarded to B's agent
    expect(a.gate.pending()).toEqual([]);
    expect(b.gate.pending()).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('is still intercepted when the requester replica is busy elsewhere, and only in its session', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    const { id, decision } = await a.ask('g1');
    await cluster.follows(b, id);
    expect(await b.say('g2', '确认')).toBe('queued'); // another chat: the agent gets it
    expect(await b.say('g1', '确认', { senderId: 'mallory' })).toBe('queued'); // not an approver
    expect(await b.say('g1', '取消')).toBe('intercepted');
    expect(await decision).toMatchObject({ outcome: 'cancelled', decidedBy: 'alice' });
  });
});

describe('one reply delivered to both replicas', () => {
  it('settles exactly once, and both replicas and the waiter agree', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    for (let round = 0; round < 20; round++) {
      const chat = `dup${round}`;
      const { id, decision } = await a.ask(chat);
      await cluster.follows(b, id);
      const statuses = await Promise.all([
        a.say(chat, '确认', { eventId: `evt-${round}` }),
        b.say(chat, '确认', { eventId: `evt-${round}` }),
      ]);
      expect(statuses).toEqual(['intercepted', 'intercepted']);
      const final = await decision;
      expect(final.outcome).toBe('confirmed');
      await until(() => b.decided.some((d) => d.id === id), 20_000, 'B to hear the decision');
      expect(b.decided.filter((d) => d.id === id)).toEqual([final]);
      expect(a.decided.filter((d) => d.id === id)).toEqual([final]);
    }
    expect(await decisionsIn(a)).toHaveLength(20);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('keeps one outcome when the two replicas get contradicting replies at once', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    const outcomes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const chat = `race${round}`;
      const { id, decision } = await a.ask(chat);
      await cluster.follows(b, id);
      await Promise.all([a.say(chat, '确认'), b.say(chat, '取消')]);
      const final = await decision;
      outcomes.add(final.outcome);
      expect(await b.gate.reconcile(id)).toEqual(final);
      const recorded = (await decisionsIn(a)).filter((d) => d.id === id);
      expect(recorded).toEqual([final]);
      const authorized = await a.gate.authorize(final, ACTION);
      expect(authorized.ok).toBe(final.outcome === 'confirmed');
    }
    expect([...outcomes].every((o) => o === 'confirmed' || o === 'cancelled')).toBe(true);
  });
});

describe('the requester replica restarted before the reply', () => {
  function resumeLog(): { resume: Record<string, ResumeHandler>; calls: ConfirmDecision[] } {
    const calls: ConfirmDecision[] = [];
    return { resume: { [ACTION.name]: (decision) => void calls.push(decision) }, calls };
  }

  it('intercepts the reply on the new instance and resumes the action through its handler', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const { id } = await a.ask();
    await a.persisted(id);
    await a.crash();
    const log = resumeLog();
    const a2 = await cluster.start('a2', { gate: { resume: log.resume } });
    expect(a2.gate.pending()).toMatchObject([{ id, restored: true, remote: false }]);

    expect(await a2.say('g1', '确认')).toBe('intercepted');
    await until(() => log.calls.length === 1, 20_000, 'the resume handler');
    expect(log.calls[0]).toMatchObject({ id, outcome: 'confirmed', decidedBy: 'alice' });
    expect(await a2.gate.authorize(log.calls[0] as ConfirmDecision, ACTION)).toMatchObject({ ok: true });
    expect(a2.bus.size.inbound).toBe(0);
  });

  it('resumes it on the new instance when the reply lands on another replica', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const bLog = resumeLog();
    const b = await cluster.start('b', { gate: { resume: bLog.resume } });
    const { id } = await a.ask();
    await cluster.follows(b, id);
    await a.crash();
    const log = resumeLog();
    await cluster.start('a2', { gate: { resume: log.resume } });

    expect(await b.say('g1', '确认')).toBe('intercepted');
    await until(() => log.calls.length === 1, 20_000, 'the resume handler on the new instance');
    expect(log.calls[0]).toMatchObject({ id, outcome: 'confirmed' });
    expect(bLog.calls).toEqual([]); // resumed once, where the confirmation was restored
  });

  it('tells the session plainly that the action expired when no handler is registered for it', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const { id } = await a.ask();
    await a.persisted(id);
    await a.crash();
    const a2 = await cluster.start('a2');

    expect(await a2.say('g1', '确认')).toBe('intercepted');
    await until(() => a2.decided.length === 1, 20_000, 'the decision');
    expect(a2.decided[0]).toMatchObject({ id, outcome: 'aborted', reason: 'expired' });
    await until(() => a2.sent('g1').length === 1, 20_000, 'the notice');
    expect(a2.sent('g1')[0]).toContain('This action has expired');
    expect(await a2.gate.authorize(id, ACTION)).toEqual({ ok: false, code: 'not_confirmed' });
  });

  it('leaves a confirmation another live replica is waiting on to that replica', async () => {
    cluster = gateCluster(server);
    const a = await cluster.start('a');
    const b = await cluster.start('b');
    const { id, decision } = await b.ask();
    await cluster.follows(a, id);
    await a.crash();
    const log = resumeLog();
    const a2 = await cluster.start('a2', { gate: { resume: log.resume } });
    await cluster.follows(a2, id);

    expect(await a2.say('g1', '确认')).toBe('intercepted');
    expect(await decision).toMatchObject({ id, outcome: 'confirmed' });
    expect(a2.sent('g1')).toEqual([]); // no "expired" notice
    expect(log.calls).toEqual([]); // B's waiter goes on; no second resumption here
  });
});
