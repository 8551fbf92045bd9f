// The channel-confirmation seed end to end through the real Bolt (HTTPReceiver, signed requests),
// the real WebClient against the Web API stand-in, the bus and the confirm gate: the prompt card is
// posted as Block Kit, "确认" from the requester executes once, another member's click is refused,
// a redelivered event (Slack's retry) changes nothing, and a restart keeps the pending confirmation.
import type { ConfirmDecision } from '@parley/confirm';
import { createManualClock, createMemoryStore, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfirmSeed, createConfirmSeed } from '../../../../tests/support/confirm-seed.js';
import type { SlackStandIn } from '../src/testing.js';
import { ALICE, CHANNEL, type Harness, MALLORY, startHarness, startStandIn, T0 } from './helpers.js';

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}

describe('the confirmation seed on Bolt', () => {
  let clock: ManualClock;
  let api: SlackStandIn;
  let h: Harness;
  let seed: ConfirmSeed;

  async function start(resume?: (d: ConfirmDecision) => Promise<void>): Promise<void> {
    h = await startHarness({ clock, api });
    await seed.start(h.bus, resume === undefined ? {} : { resume: { 'sql.delete': resume } });
  }

  async function requestPurge(): Promise<{ decision: Promise<ConfirmDecision>; buttons: Button[] }> {
    expect(await h.event(api.payloads.message('purge cancelled orders', { at: T0 - 2_000 }))).toBe(200);
    const { decision, prompted } = seed.ask(await h.bus.receiveInbound());
    await prompted;
    const post = api.calls('chat.postMessage').at(-1);
    const blocks = post?.params['blocks'] as { type: string; elements?: Button[] }[];
    const buttons = blocks.find((block) => block.type === 'actions')?.elements ?? [];
    return { decision, buttons };
  }

  beforeEach(async () => {
    clock = createManualClock({ now: T0 });
    api = await startStandIn(clock);
    seed = createConfirmSeed({ clock, store: createMemoryStore({ clock }) });
    await start();
  });

  afterEach(async () => {
    await seed.gate.close();
    await h.stop();
    await api.close();
  });

  it('posts the prompt with confirm / cancel Block Kit buttons to the channel', async () => {
    const { buttons } = await requestPurge();
    const post = api.calls('chat.postMessage')[0];
    expect(post?.params['channel']).toBe(CHANNEL);
    expect(String(post?.params['text'])).toContain('DELETE FROM orders');
    expect(buttons.map((b) => b.text.text)).toEqual([
      expect.stringContaining('确认'),
      expect.stringContaining('取消'),
    ]);
    expect(JSON.parse(buttons[0]?.value ?? '')).toEqual({
      confirmation: expect.stringMatching(/\.confirm$/),
    });
  });

  it('executes once on the requester\'s "确认", and a retried event changes nothing', async () => {
    const { decision } = await requestPurge();
    clock.advance(1_000);
    const reply = api.payloads.message('确认', { at: T0 + 1_000 });
    await h.event(reply);
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', decidedBy: ALICE });
    await seed.purge(settled);
    const posts = api.calls('chat.postMessage').length;
    // Slack retries an event it thinks was not acknowledged: same body, same event_id.
    await h.event(reply, 1);
    await seed.purge(settled);
    expect(seed.executed).toBe(1);
    expect(api.calls('chat.postMessage')).toHaveLength(posts);
    expect(h.bus.size.inbound).toBe(0);
  });

  it("refuses another member's click and counts the requester's", async () => {
    const { decision, buttons } = await requestPurge();
    const confirm = buttons[0]?.value as string;
    clock.advance(1_000);
    expect(await h.interaction(api.payloads.click(confirm, { user: MALLORY, at: T0 + 1_000 }))).toBe(200);
    expect(seed.refused).toMatchObject([{ code: 'not_allowed', senderId: MALLORY }]);
    expect(seed.gate.pending()).toHaveLength(1);
    await h.interaction(api.payloads.click(confirm, { user: ALICE, at: T0 + 1_000 }));
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: ALICE });
    await seed.purge(settled);
    expect(seed.executed).toBe(1);
  });

  it("counts a reply stamped after the prompt's ts within the same second (Slack stamps microseconds)", async () => {
    clock.advance(300);
    const { decision } = await requestPurge(); // posted at T0 + 0.300 s
    // Delivered late (after the prompt), but Slack's ts puts it before the prompt: not an answer.
    await h.event(api.payloads.message('确认', { at: T0 + 200 }));
    expect(seed.ignored).toMatchObject([{ code: 'stale_reply' }]);
    expect(seed.gate.pending()).toHaveLength(1);
    clock.advance(400);
    await h.event(api.payloads.message('确认', { at: T0 + 700 })); // the same second, after the prompt
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it('ignores a reply Slack stamped before the prompt within the same millisecond, counts one after it', async () => {
    clock.advance(300);
    const { decision } = await requestPurge(); // the prompt's ts is T0 + 0.300 s and one micro-unit
    // Both stamps floor to the same millisecond; Slack's ts puts this reply before the prompt.
    await h.event(api.payloads.message('确认', { at: T0 + 300, seq: 0 }));
    expect(seed.ignored).toMatchObject([{ code: 'stale_reply' }]);
    expect(seed.gate.pending()).toHaveLength(1);
    await h.event(api.payloads.message('确认', { at: T0 + 300, seq: 2 })); // the same millisecond, after it
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: ALICE });
  });

  it('keeps the pending confirmation across a restart: a new app, bus and gate on the same store', async () => {
    const { decision } = await requestPurge();
    await seed.gate.close();
    expect(await decision).toMatchObject({ outcome: 'aborted', reason: 'closed' });
    await h.stop();
    const resumed: ConfirmDecision[] = [];
    await start(async (settled) => {
      resumed.push(settled);
      await seed.purge(settled);
    });
    expect(seed.gate.pending()).toMatchObject([{ restored: true, requester: ALICE }]);
    const decided = new Promise((resolve) => seed.gate.on('decided', resolve));
    clock.advance(2_000);
    await h.event(api.payloads.message('确认', { at: T0 + 2_000 }));
    await decided;
    expect(resumed).toMatchObject([{ outcome: 'confirmed' }]);
    expect(seed.executed).toBe(1);
  });
});
