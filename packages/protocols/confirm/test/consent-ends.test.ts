import { createMessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore } from '@parley/core';
import { createFakeChannel, createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createConfirmGate } from '../src/index.js';
import { ACTION, flush, settledNow, slowOwnerAndFollower } from './helpers.js';

// Issue 30, section 2: nothing hangs and nothing stale wins. Every held click or reply ends at
// the decision, the deadline or close(); a record is only ever replaced by a newer version of it.

/** Lets every pending store operation and the notifications it causes run (no time passes). */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Gate A prompts on a platform whose send hangs; gate B shares A's store, which has no `watch`. */
async function clickOnReplicaWithoutWatch() {
  const clock = createManualClock({ now: 1_000_000 });
  const store = createFakeStore({ inner: createMemoryStore({ clock }), watch: false });
  const { a, b, slow, busB } = await slowOwnerAndFollower(clock, store, { timeoutMs: 60_000 });
  const refusedOnB: string[] = [];
  b.on('refused', (event) => refusedOnB.push(event.code));
  const decision = a.request({
    sessionKey: 'feishu:g1',
    action: ACTION,
    summary: 'DELETE',
    requester: 'alice',
  });
  await drain();
  const value = slow.held[0]?.message.card?.buttons[0]?.value as { confirmation: string } | undefined;
  if (value === undefined) throw new Error('The prompt in flight has no card');
  const token = value.confirmation;
  const click = busB.publishInbound({
    channel: 'feishu',
    chatId: 'g1',
    senderId: 'alice',
    kind: 'card_action',
    text: '',
    action: { confirmation: token },
  });
  await drain();
  return { a, b, clock, slow, decision, click, refusedOnB };
}

describe('a card click on a replica that does not hold the confirmation, on a store without watch', () => {
  it('[ENDS-01] ends at the deadline instead of waiting forever', async () => {
    const h = await clickOnReplicaWithoutWatch();
    h.slow.deliverNext(); // the owner delivers; B is never told (no watch)
    await drain();
    h.clock.advance(60_000); // the deadline: A times the confirmation out
    await drain();
    h.clock.advance(1_000); // B, which follows it, times it out a moment later and adopts A's decision
    await drain();
    expect((await settledNow(h.click, 'the click on replica B')).status).toBe('intercepted');
    expect(h.refusedOnB.length).toBe(1);
    await Promise.all([h.a.close(), h.b.close()]);
    expect((await h.decision).outcome).toBe('timed_out');
  });

  it('[ENDS-02] ends when the replica closes', async () => {
    const h = await clickOnReplicaWithoutWatch();
    await h.b.close();
    expect((await settledNow(h.click, 'the click on replica B')).status).toBe('intercepted');
    await h.a.close();
    expect((await h.decision).outcome).toBe('aborted');
  });
});

describe('a store resync', () => {
  it('[ENDS-03] never replaces a record with an older version of itself (requests made before ready)', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const bus = createMessageBus({ clock });
    const channel = createFakeChannel({ channel: 'tg', clock });
    await bus.attach(channel);
    const gate = createConfirmGate({ bus, clock, store: createMemoryStore({ clock }), cards: false });
    const request = (chat: string) =>
      gate.request({ sessionKey: `tg:${chat}`, action: ACTION, summary: 'DELETE', requester: 'alice' });
    const a = request('a');
    const b = request('b');
    await drain();
    await drain();
    expect(gate.pending()).toMatchObject([{ delivered: true }, { delivered: true }]);
    await channel.say('b', 'alice', '确认');
    expect(await settledNow(b, 'the decision in tg:b')).toMatchObject({ outcome: 'confirmed' });
    await channel.say('a', 'alice', '取消');
    expect(await settledNow(a, 'the decision in tg:a')).toMatchObject({ outcome: 'cancelled' });
    await gate.close();
  });
});

it('[ENDS-04] flushes nothing that is still waiting once a gate closes', async () => {
  const h = await clickOnReplicaWithoutWatch();
  await Promise.all([h.a.close(), h.b.close()]);
  await flush();
  expect((await settledNow(h.click, 'the click')).status).toBe('intercepted');
  expect(h.clock.pendingTimers()).toBe(0);
});
