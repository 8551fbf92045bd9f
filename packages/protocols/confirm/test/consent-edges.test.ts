import { createManualClock, createMemoryStore } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { ACTION, buttonToken, flush, setup, setupSlow, storeData, storedData } from './helpers.js';

// The edges of the issue 18 rules: bounds of what waits, records written by others, rendering.

/** Alice's request in chat g1, as every test here makes it. */
const DELETE = { sessionKey: 'feishu:g1', action: ACTION, summary: 'DELETE', requester: 'alice' } as const;

describe('edges of exact consent', () => {
  it('holds at most 16 ordered replies for one prompt in flight and consumes the rest uncounted', async () => {
    const s = await setupSlow();
    void s.gate.request(DELETE);
    await flush();
    const order = { scope: 'g1', position: [7] }; // level with the prompt: none of them counts
    const held = Array.from({ length: 17 }, () => s.slow.say('g1', 'alice', 'hmm', { order }));
    expect((await held[16])?.status).toBe('intercepted');
    expect(s.ignored).toMatchObject([{ code: 'before_delivery' }]);
    s.clock.advance(1);
    s.slow.deliverNext({ order });
    await Promise.all(held);
    expect(s.ignored).toHaveLength(17);
    expect(s.gate.pending()).toMatchObject([{ delivered: true }]);
  });

  it('waits with a click on a prompt in flight and counts it once the send succeeds: the button is on the shown card', async () => {
    const s = await setupSlow();
    const refused: unknown[] = [];
    s.gate.on('refused', (event) => refused.push(event));
    const decision = s.gate.request(DELETE);
    await flush();
    const card = { kind: 'card_action', action: { confirmation: 'cfm_1.confirm' } } as const;
    const early = s.slow.say('g1', 'alice', '', card); // the platform showed it; its answer is late
    await flush();
    expect(s.gate.pending()).toHaveLength(1); // held until the send settles
    s.clock.advance(300);
    s.slow.deliverNext();
    expect((await early).status).toBe('intercepted');
    expect(refused).toEqual([]);
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: 'alice' });
  });

  it('refuses a click on a prompt in flight whose send then fails, and one that arrived before the send began', async () => {
    const store = createFakeStore({ inner: createMemoryStore() });
    const s = await setupSlow({ store });
    const refused: unknown[] = [];
    s.gate.on('refused', (event) => refused.push(event));
    const first = s.gate.request(DELETE);
    await flush();
    const click = (id: string) =>
      s.slow.say('g1', 'alice', '', { kind: 'card_action', action: { confirmation: `${id}.confirm` } });
    const held = click('cfm_1');
    s.slow.held.shift()?.reject(new Error('network down'));
    expect((await held).status).toBe('intercepted');
    expect(await first).toMatchObject({ outcome: 'aborted', reason: 'prompt_failed' });
    expect(refused).toMatchObject([{ code: 'settled', id: 'cfm_1' }]);

    let release: () => void = () => {};
    store.before('compareAndSet', () => new Promise<void>((resolve) => (release = resolve)));
    const second = s.gate.request(DELETE);
    await flush();
    await click('cfm_2'); // its record is being written: the card's send has not begun
    expect(refused).toMatchObject([{ code: 'settled' }, { code: 'before_delivery', id: 'cfm_2' }]);
    release();
    await flush();
    s.slow.deliverNext();
    await flush();
    expect(s.gate.pending()).toHaveLength(1);
    await click('cfm_2');
    expect(await second).toMatchObject({ outcome: 'confirmed', reason: 'card' });
  });

  it('takes a confirmed decision recorded at or after the deadline as timed_out, and authorize refuses it', async () => {
    const h = await setup({ timeoutMs: 60_000 });
    const { decision, id } = await h.ask();
    const [view] = h.gate.pending();
    const late = {
      id,
      sessionKey: 'feishu:g1',
      action: (await storedData(h.store, 'confirm:pending:cfm_1')).action,
      summary: 's',
      requester: 'alice',
      outcome: 'confirmed',
      reason: 'reply',
      decidedBy: 'alice',
      requestedAt: 1_000_000,
      decidedAt: view?.expiresAt as number,
      expiresAt: view?.expiresAt as number,
    };
    await storeData(h.store, `confirm:decision:${id}`, 'decision', late); // a replica that did not check
    expect(await decision).toMatchObject({ outcome: 'timed_out', reason: 'timeout' });
    expect(await h.gate.authorize(id, ACTION)).toEqual({ ok: false, code: 'not_confirmed' });
  });

  it('reports a failed clean-up of a settled record on restart and still does not restore it', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createFakeStore({ inner: createMemoryStore({ clock }) });
    const before = await setup({ store }, { clock, store });
    const { decision } = await before.ask();
    store.fail('delete', { times: 2 });
    clock.advance(1);
    await before.channel.say('g1', 'alice', '取消');
    await decision;
    await flush();
    const after = await before.restart();
    expect(after.gate.pending()).toEqual([]);
  });

  it('keeps at most 8 000 characters of a summary, saying how many were not kept', async () => {
    const h = await setup();
    const { decision } = await h.ask({ summary: 'x'.repeat(9_000) });
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', '取消');
    expect((await decision).summary).toMatch(/… \(1000 more characters not kept\)$/);
  });

  it('shows non-object arguments of a shortened summary as canonical JSON', async () => {
    const h = await setup();
    await h.ask({
      action: { name: 'batch', args: ['DROP TABLE a', 'DROP TABLE b'] },
      summary: 'y'.repeat(600),
    });
    expect(h.channel.lastSent('g1')?.text).toContain('Arguments: ["DROP TABLE a","DROP TABLE b"]');
  });

  it('expires with a notice a restored confirmation clicked when no resume handler exists', async () => {
    const before = await setup();
    await before.ask();
    const token = buttonToken(before.channel, 'confirm');
    const after = await before.restart();
    await after.channel.click('g1', 'alice', { confirmation: token });
    await flush();
    expect(after.decided).toMatchObject([{ outcome: 'aborted', reason: 'expired' }]);
  });

  it('absorbs a step’s exact text after a multi-step confirmation was decided', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: [{ prompt: 'Type DROP', expect: 'DROP' }] });
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', 'DROP');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
    expect((await h.channel.say('g1', 'alice', 'DROP')).status).toBe('intercepted');
    expect((await h.channel.say('g1', 'alice', 'DROP it all')).status).toBe('queued');
  });
});
