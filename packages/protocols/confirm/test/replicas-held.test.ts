import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import type { ConfirmEvents } from '../src/index.js';
import { ACTION, flush, slowOwnerAndFollower } from './helpers.js';

/** Lets every pending store operation and the notifications it causes run (no time passes). */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Gate A prompts on a platform whose send hangs; gate B, a replica on the same store, follows the
 * confirmation while its prompt is still in flight, so a reply reaching B is held for the delivery.
 */
async function heldOnFollower() {
  const clock = createManualClock({ now: 1_000_000 });
  const store = createMemoryStore({ clock });
  const { a, b, slow, channelB } = await slowOwnerAndFollower(clock, store, { cards: false });
  const ignoredOnB: ConfirmEvents['ignored'][] = [];
  b.on('ignored', (event) => ignoredOnB.push(event));
  const controller = new AbortController();
  const decision = a.request({
    sessionKey: 'feishu:g1',
    action: ACTION,
    summary: ACTION.args.sql,
    requester: 'alice',
    signal: controller.signal,
  });
  await drain();
  expect(slow.held).toHaveLength(1); // A's prompt is in flight
  expect([b.followed().length, b.pending()]).toEqual([1, []]); // followed by its index entry, not held
  let settled = false;
  // The reply carries the platform's order, so B holds it until it learns the prompt's order.
  const reply = channelB
    .say('g1', 'alice', '确认', { order: { scope: 'g1', position: [11] } })
    .then((result) => {
      settled = true;
      return result;
    });
  await drain();
  expect(settled).toBe(false); // held on B until the prompt's fate is known
  expect(b.pending()).toMatchObject([{ remote: true, delivered: false }]); // loaded by the reply
  return { a, b, clock, controller, decision, reply, ignoredOnB, slow, isSettled: () => settled };
}

describe('a reply held on a replica while the prompt is in flight', () => {
  it('[CONSENT-21] is released, consumed and not counted when the owner settles the confirmation first', async () => {
    const h = await heldOnFollower();
    h.controller.abort(new Error('user left'));
    expect(await h.decision).toMatchObject({ outcome: 'aborted' });
    await drain();
    await flush();
    expect(h.isSettled()).toBe(true); // it used to wait forever: the adapter's publishInbound hung
    expect((await h.reply).status).toBe('intercepted'); // an answer to it, never chat for the agent
    expect(h.ignoredOnB).toMatchObject([{ code: 'after_decision' }]);
    expect(h.b.pending()).toEqual([]);
    await Promise.all([h.a.close(), h.b.close()]);
  });

  it('is released when the prompt fails on the owner, confirms nothing, and goes on as chat (no prompt was shown)', async () => {
    const h = await heldOnFollower();
    h.slow.held[0]?.reject(new Error('platform down'));
    expect(await h.decision).toMatchObject({ outcome: 'aborted', reason: 'prompt_failed' });
    await drain();
    await flush();
    expect((await h.reply).status).toBe('queued');
    expect(h.ignoredOnB).toEqual([]);
    expect(h.b.pending()).toEqual([]);
    await Promise.all([h.a.close(), h.b.close()]);
  });
});
