import type { Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type ConfirmDecision, DEFAULT_AFTER_DECISION_MS } from '../src/index.js';
import { ACTION, DROP_REQUEST, type Harness, setup, storedData } from './helpers.js';

// What a replica holds is bounded by its own pending work: it follows the confirmations other
// replicas prompted by a compact index entry each and loads one from the store only when a
// message, a click or the deadline of it reaches this replica.

/** Lets every pending store operation and the notifications it causes run (no time passes). */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const COUNT = 1_000;

/** Gate A (replica pod-a) prompts COUNT confirmations, one per chat c0…; gate B (pod-b) shares its store. */
async function aPromptsMany(): Promise<{ a: Harness; b: Harness; decisions: Promise<ConfirmDecision>[] }> {
  const a = await setup({ replicaId: 'pod-a' });
  const b = await a.restart({ replicaId: 'pod-b' });
  const decisions: Promise<ConfirmDecision>[] = [];
  for (let i = 0; i < COUNT; i++) {
    const decision = a.request({ sessionKey: `feishu:c${i}` });
    decision.catch(() => {});
    decisions.push(decision);
  }
  await drain();
  await drain();
  expect(a.gate.pending().filter((p) => p.delivered)).toHaveLength(COUNT); // waited for: every prompt's delivery
  return { a, b, decisions };
}

describe('a replica holds only its own pending work', () => {
  it('follows another replica’s 1 000 pending confirmations without holding one, and a reply on it settles the request once', async () => {
    const { a, b, decisions } = await aPromptsMany();
    expect(b.gate.pending()).toEqual([]);
    expect(b.gate.followed().length).toBe(COUNT);
    a.clock.advance(1);
    expect((await b.channel.say('c7', 'alice', '确认')).status).toBe('intercepted');
    const decision = (await decisions[7]) as ConfirmDecision;
    expect(decision).toMatchObject({ outcome: 'confirmed', reason: 'reply', decidedBy: 'alice' });
    await drain();
    expect(a.decided).toEqual([decision]); // settled once, where it waits
    expect(await storedData(a.store, `confirm:decision:${decision.id}`)).toMatchObject({
      outcome: 'confirmed',
    });
    expect(await a.gate.authorize(decision, ACTION)).toMatchObject({ ok: true });
    expect([b.gate.followed().length, b.gate.pending()]).toEqual([COUNT - 1, []]);
    // Other chat of a followed session is judged as on the owner (unrecognised: cancelled), and a
    // session nobody asked in passes on.
    expect((await b.channel.say('c8', 'alice', 'what is this?')).status).toBe('intercepted');
    expect(await decisions[8]).toMatchObject({ outcome: 'cancelled', reason: 'unrecognised' });
    expect((await b.channel.say('elsewhere', 'alice', '确认')).status).toBe('queued');
  });

  it('recovers its own pending confirmations after a restart and still only follows the others', async () => {
    const { a, b, decisions } = await aPromptsMany();
    await a.gate.close();
    await Promise.all(decisions);
    const again = await a.restart({ replicaId: 'pod-a' });
    expect(again.gate.pending()).toHaveLength(COUNT);
    expect(again.gate.pending().every((p) => p.restored && !p.remote)).toBe(true);
    expect(again.gate.followed().length).toBe(0);
    expect([b.gate.followed().length, b.gate.pending()]).toEqual([COUNT, []]);
    again.clock.advance(1);
    expect((await b.channel.say('c3', 'alice', '确认')).status).toBe('intercepted');
    await drain();
    expect(again.decided).toMatchObject([{ outcome: 'confirmed', decidedBy: 'alice' }]);
  });

  it('settles the confirmations of a replica that is gone: a reply on another, and at the deadline', async () => {
    const a = await setup({ replicaId: 'pod-a', timeoutMs: 60_000 });
    const b = await a.restart({ replicaId: 'pod-b' });
    a.request({ sessionKey: 'feishu:c1' }).catch(() => {});
    a.request({ sessionKey: 'feishu:c2' }).catch(() => {});
    await drain();
    await a.gate.close(); // pod-a is gone and does not come back
    const c = await a.restart({ replicaId: 'pod-c' }); // a replica started after it
    expect([b.gate.followed().length, c.gate.followed().length, c.gate.pending()]).toEqual([2, 2, []]);
    a.clock.advance(1);
    expect((await c.channel.say('c1', 'alice', '确认')).status).toBe('intercepted');
    await drain();
    expect(c.decided).toMatchObject([{ sessionKey: 'feishu:c1', outcome: 'confirmed' }]);
    expect(b.gate.followed().length).toBe(1);
    // Past the deadline B and C load it (a store read), then wait the owner's grace; one records it.
    a.clock.advance(60_000);
    for (let i = 0; i < 3; i++) {
      await drain();
      a.clock.advance(1_000);
    }
    await drain();
    expect(await storedData(a.store, 'confirm:decision:cfm_2')).toMatchObject({ outcome: 'timed_out' });
    const told = [...b.channel.sent, ...c.channel.sent].filter(
      (m) => m.chatId === 'c2' && m.text.includes('超时'),
    );
    expect(told).toHaveLength(1);
    expect([b.gate.followed().length, c.gate.followed().length, b.gate.pending(), c.gate.pending()]).toEqual([
      0,
      0,
      [],
      [],
    ]);
  });

  it('absorbs an answer to another replica’s confirmation decided lately, from its decision read on demand, until afterDecisionMs', async () => {
    const a = await setup({ replicaId: 'pod-a' });
    const b = await a.restart({ replicaId: 'pod-b' });
    const first = a.request({ sessionKey: 'feishu:c1' });
    const second = a.request({ sessionKey: 'feishu:c2' });
    const fourth = a.request({ sessionKey: 'feishu:c4' });
    await drain();
    a.clock.advance(1);
    await a.channel.say('c1', 'alice', '取消');
    await a.channel.say('c2', 'alice', '确认');
    await a.channel.say('c4', 'alice', '确认');
    expect(await fourth).toMatchObject({ outcome: 'confirmed' });
    expect([await first, await second]).toMatchObject([{ outcome: 'cancelled' }, { outcome: 'confirmed' }]);
    await drain();
    expect([b.gate.followed().length, b.gate.pending()]).toEqual([0, []]);
    expect((await b.channel.say('c1', 'alice', '确认')).status).toBe('intercepted'); // "确认" sent twice
    expect(b.events.ignored).toMatchObject([{ code: 'after_decision', sessionKey: 'feishu:c1' }]);
    expect(b.channel.lastSent('c1')?.text).toContain('取消'); // told once what was decided
    expect((await b.channel.say('c1', 'alice', 'and the logs?')).status).toBe('queued'); // chat passes
    b.clock.advance(DEFAULT_AFTER_DECISION_MS);
    expect((await b.channel.say('c2', 'alice', '确认')).status).toBe('queued'); // forgotten: chat again
    const third = a.request({ sessionKey: 'feishu:c3' }); // removed later: c4 is forgotten then
    await drain();
    a.clock.advance(1);
    await a.channel.say('c3', 'alice', '确认');
    expect(await third).toMatchObject({ outcome: 'confirmed' });
    await drain();
    expect((await b.channel.say('c4', 'alice', '确认')).status).toBe('queued');
    expect((await b.channel.say('c3', 'alice', '确认')).status).toBe('intercepted'); // still absorbed
    expect(b.decided).toEqual([]);
  });

  it('reports a record it cannot load for a reply, lets the message pass, and loads it once the store answers', async () => {
    const a = await setup({ replicaId: 'pod-a' });
    let failing = false;
    const inner = a.store;
    const flaky: Store = {
      ...inner,
      getEntry: (key) => (failing ? Promise.reject(new Error('read failed')) : inner.getEntry(key)),
    };
    const b = await a.restart({ replicaId: 'pod-b', store: flaky });
    const decision = a.request({ sessionKey: 'feishu:c1' });
    await drain();
    expect(b.gate.followed().length).toBe(1);
    failing = true;
    a.clock.advance(1);
    expect((await b.channel.say('c1', 'alice', '确认')).status).toBe('queued'); // nothing decided from it
    expect(b.events.error).toHaveLength(1);
    expect(b.gate.followed().length).toBe(1);
    failing = false;
    expect((await b.channel.say('c1', 'alice', '确认')).status).toBe('intercepted');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
  });

  it('answers the prompted confirmation of a session, not the one queued behind it, on a replica that follows both', async () => {
    const a = await setup({ replicaId: 'pod-a' });
    const b = await a.restart({ replicaId: 'pod-b' });
    const first = a.request();
    await drain();
    const second = a.request({ ...DROP_REQUEST });
    await drain();
    a.clock.advance(1);
    expect((await b.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    expect(await first).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
    await drain();
    await drain();
    a.clock.advance(1);
    expect((await b.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    expect(await second).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
  });
});
