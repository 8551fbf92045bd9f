import { createMessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { createFakeStore, type FakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createConfirmGate } from '../src/index.js';
import { delegating } from '../../../../tests/support/stores.js';
import { until } from '../../../../tests/support/turns.js';
import { ACTION, buttonToken, setup } from './helpers.js';

/** A memory store whose methods can be told to fail, without `watch` (like the hand-written one it replaces). */
function flakyStore(clock = createManualClock({ now: 1_000_000 })): FakeStore {
  return createFakeStore({ clock, watch: false });
}

describe('store failures', () => {
  it('still decides when the store cannot write, reporting each failure as an error event', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = flakyStore(clock);
    const h = await setup({}, { clock, store });
    store.fail(['set', 'compareAndSet']);
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    expect((await decision).outcome).toBe('confirmed');
    expect(h.events.error.length).toBeGreaterThanOrEqual(2);
  });

  it('reports a store that cannot list on restore, and works on', async () => {
    const clock = createManualClock();
    const store = flakyStore(clock);
    store.fail('list');
    const bus = createMessageBus({ clock });
    const errors: unknown[] = [];
    const gate = createConfirmGate({ bus, clock, store, onListenerError: () => {} });
    gate.on('error', ({ error }) => errors.push(error));
    await gate.ready;
    expect(errors).toHaveLength(1);
  });

  it('reports an allowance lookup that fails and prompts as usual', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = flakyStore(clock);
    const h = await setup({ standingAllowanceMs: 1_000 }, { clock, store });
    store.fail('getEntry', { times: 1 }); // the allowance read
    const { id } = await h.ask();
    expect(h.gate.pending()).toMatchObject([{ id }]);
    expect(h.events.error).toHaveLength(1);
  });

  it('refuses a click it cannot look up as unknown and reports the error', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = flakyStore(clock);
    const h = await setup({}, { clock, store });
    store.fail('get');
    await h.channel.click('g1', 'alice', { confirmation: 'cfm_9.confirm' });
    expect(h.events.refused).toMatchObject([{ code: 'unknown_confirmation' }]);
    expect(h.events.error).toHaveLength(1);
  });

  it('skips records it cannot read, on restore and in the audit', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    await store.set('confirm:pending:junk', { v: 2 });
    await store.set('confirm:pending:list', [1]);
    await store.set('confirm:decision:junk', 'x');
    const gate = createConfirmGate({ bus: createMessageBus({ clock }), clock, store });
    await gate.ready;
    expect(gate.pending()).toEqual([]);
    const audit = [];
    for await (const decision of gate.audit()) audit.push(decision);
    expect(audit).toEqual([]);
  });
});

describe('races', () => {
  it('waits for restored confirmations before judging a message or a request', async () => {
    const before = await setup();
    await before.ask();
    const bus = createMessageBus({ clock: before.clock });
    const gate = createConfirmGate({ bus, clock: before.clock, store: before.store });
    const result = bus.publishInbound({
      channel: 'feishu',
      chatId: 'g1',
      senderId: 'alice',
      text: '取消',
      createdAt: before.clock.now(),
    });
    const click = bus.publishInbound({
      channel: 'feishu',
      chatId: 'g1',
      senderId: 'alice',
      kind: 'card_action',
      action: { confirmation: 'cfm_1.cancel' },
    });
    expect((await result).status).toBe('intercepted');
    expect((await click).status).toBe('intercepted');
    await gate.close();
  });

  it('rejects a request with closed when the gate closes while it is being prepared', async () => {
    const h = await setup();
    const pending = h.request();
    await h.gate.close();
    await expect(pending).rejects.toMatchObject({ code: 'closed' });
  });

  it('aborts as closed a request that was waiting for its allowance lookup', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const inner = createMemoryStore({ clock });
    let reading = false;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // the standing allowance's read waits until the gate is closed
    const store: Store = {
      ...delegating(inner),
      getEntry: async (key) => {
        if (key.includes(':allow:')) {
          reading = true;
          await held;
        }
        return inner.getEntry(key);
      },
    };
    const h = await setup({ standingAllowanceMs: 1_000 }, { clock, store });
    const asked = h.request();
    await until('the request to read its standing allowance', () => reading); // after the digest (Web Crypto)
    await h.gate.close();
    release();
    expect(await asked).toMatchObject({ outcome: 'aborted', reason: 'closed' });
  });

  it('authorises once when two executions race', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    const final = await decision;
    const results = await Promise.all([h.gate.authorize(final, ACTION), h.gate.authorize(final, ACTION)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, code: 'already_used' }]);
  });

  it('adopts the decision another replica recorded first when its own timer fires', async () => {
    const a = await setup();
    const b = await a.restart();
    const { decision } = await a.ask();
    const token = buttonToken(a.channel, 'confirm');
    const onB = new Promise((resolve) => b.gate.on('decided', resolve));
    await b.channel.click('g1', 'alice', { confirmation: token });
    await onB;
    a.clock.advance(300_000);
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card' });
    await b.channel.click('g1', 'alice', { confirmation: token });
    expect(b.events.refused).toMatchObject([{ code: 'settled' }]);
  });

  it('reconciles to undefined while nothing is recorded, and returns a decision it does not hold', async () => {
    const h = await setup();
    const { id, decision } = await h.ask();
    expect(await h.gate.reconcile(id)).toBeUndefined();
    await h.channel.say('g1', 'alice', '确认');
    await decision;
    expect(await h.gate.reconcile(id)).toMatchObject({ outcome: 'confirmed' });
  });

  it('reports a notice that cannot be sent', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    h.channel.failSends(1);
    h.clock.advance(300_000);
    await decision;
    await until('the failed notice to be reported', () => h.events.error.length > 0);
    expect(h.events.error).toHaveLength(1);
  });

  it('shares an allowance with every member under approvers: any', async () => {
    const h = await setup({ standingAllowanceMs: 1_000, approvers: 'any' });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'bob', 'always allow');
    await decision;
    const next = await h.request({ requester: 'carol' });
    expect(next).toMatchObject({ outcome: 'confirmed', reason: 'standing_allowance', decidedBy: 'bob' });
  });
});
