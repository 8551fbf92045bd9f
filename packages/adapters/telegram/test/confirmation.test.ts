// The channel-confirmation seed end to end through the real grammY (polling and webhook), the
// bus and the confirm gate, against the Bot API stand-in: the prompt card is sent, "确认" from the
// requester executes once, another member's click is refused, a redelivered update changes
// nothing, and a restart (a new bot, bus and gate on the same store) keeps the pending confirmation.
import type { ConfirmDecision } from '@parley/confirm';
import { createManualClock, createMemoryStore, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfirmSeed, createConfirmSeed } from '../../../../tests/support/confirm-seed.js';
import type { TelegramStandIn } from '../src/testing.js';
import { ALICE, GROUP_ID, type Harness, MALLORY, MODES, startHarness, startStandIn, T0 } from './helpers.js';

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

describe.each(MODES)('the confirmation seed on grammY (%s)', (mode) => {
  let clock: ManualClock;
  let api: TelegramStandIn;
  let h: Harness;
  let seed: ConfirmSeed;

  /** The agent's side: a user's /purge arrives on the bus, and the tool asks for confirmation. */
  async function requestPurge(): Promise<{ decision: Promise<ConfirmDecision>; keyboard: Keyboard }> {
    await h.feed(api.updates.message('/purge', { date: T0 }));
    const message = await h.bus.receiveInbound();
    const sends = api.calls('sendMessage').length;
    const { decision, prompted } = seed.ask(message);
    const sent = await api.waitFor('sendMessage', sends + 1);
    await prompted;
    return { decision, keyboard: sent.params['reply_markup'] as Keyboard };
  }

  beforeEach(async () => {
    clock = createManualClock({ now: T0 * 1000 });
    api = await startStandIn(clock);
    seed = createConfirmSeed({ clock, store: createMemoryStore({ clock }) });
    h = await startHarness({ mode, clock, api });
    await seed.start(h.bus);
  });

  afterEach(async () => {
    await seed.gate.close();
    await h.stop();
    await api.close();
  });

  it('sends the prompt as a message with a confirm / cancel inline keyboard to the chat', async () => {
    const { keyboard } = await requestPurge();
    const sent = api.calls('sendMessage')[0];
    expect(sent?.params['chat_id']).toBe(GROUP_ID);
    expect(String(sent?.params['text'])).toContain('DELETE FROM orders');
    const row = keyboard.inline_keyboard[0] ?? [];
    expect(row.map((b) => b.text)).toEqual([
      expect.stringContaining('确认'),
      expect.stringContaining('取消'),
    ]);
    expect(row.every((b) => b.callback_data.startsWith('p:c:') && b.callback_data.length <= 64)).toBe(true);
  });

  it('executes once on the requester\'s "确认", and a redelivered update changes nothing', async () => {
    const { decision } = await requestPurge();
    const reply = api.updates.message('确认', { date: T0 + 1 });
    await h.feed(reply);
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', decidedBy: String(ALICE.id) });
    await seed.purge(settled);
    const sends = api.calls('sendMessage').length;
    await h.feed(reply); // Telegram delivers the same update again
    await seed.purge(settled); // and the tool, asked again, refuses to run twice
    expect(seed.executed).toBe(1);
    expect(api.calls('sendMessage')).toHaveLength(sends);
    expect(h.bus.size.inbound).toBe(0);
  });

  it("refuses another member's click and counts the requester's", async () => {
    const { decision, keyboard } = await requestPurge();
    const confirm = keyboard.inline_keyboard[0]?.[0]?.callback_data as string;
    await h.feed(api.updates.click(confirm, { from: MALLORY }));
    expect(seed.refused).toMatchObject([{ code: 'not_allowed', senderId: String(MALLORY.id) }]);
    expect(seed.gate.pending()).toHaveLength(1);
    clock.advance(1_000);
    await h.feed(api.updates.click(confirm, { from: ALICE }));
    const settled = await decision;
    expect(settled).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: String(ALICE.id) });
    await seed.purge(settled);
    expect(seed.executed).toBe(1);
    // Every click is acknowledged, so no button keeps spinning.
    expect(api.calls('answerCallbackQuery')).toHaveLength(2);
  });

  it('counts a reply written in the second the prompt was delivered: order decides, never a tie of clock stamps', async () => {
    api.onSend(() => clock.advance(300)); // sent at T0, delivered at T0 + 0.3 s, stamped T0 by Telegram
    const { decision } = await requestPurge();
    await h.feed(api.updates.message('确认', { date: T0 })); // arrived after the send resolved, in the prompt's second
    expect(seed.ignored).toEqual([]);
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it("counts the requester's click that reaches the bot before Telegram's answer to the prompt's send", async () => {
    // Telegram shows the card and Alice clicks; the click's update reaches the bot while the answer
    // to sendMessage is still on its way. The button is on the delivered card, so the click counts.
    await seed.gate.close();
    await h.stop();
    let arrived!: () => void;
    const clicked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const watch = (message: { kind: string }): boolean => {
      if (message.kind === 'card_action') arrived();
      return false;
    };
    h = await startHarness({
      mode,
      clock,
      api,
      setup: (_bot, bus) => void bus.intercept({ name: 'watch', intercept: watch }),
    });
    await seed.start(h.bus);
    let answer!: () => void;
    api.onSend(() => new Promise<void>((resolve) => (answer = resolve)));
    const { decision } = seed.ask({ sessionKey: `telegram:${GROUP_ID}`, senderId: String(ALICE.id) });
    const sent = await api.waitFor('sendMessage');
    const keyboard = sent.params['reply_markup'] as Keyboard;
    const fed = h.feed(
      api.updates.click(keyboard.inline_keyboard[0]?.[0]?.callback_data as string, { from: ALICE }),
    );
    await clicked;
    clock.advance(300); // the answer to sendMessage arrives 0.3 s after the click
    answer();
    await fed; // the click is handled
    expect(seed.refused).toEqual([]);
    expect(await decision).toMatchObject({
      outcome: 'confirmed',
      reason: 'card',
      decidedBy: String(ALICE.id),
    });
  });

  it('keeps the pending confirmation across a restart: a new bot, bus and gate on the same store', async () => {
    const { decision } = await requestPurge();
    await seed.gate.close();
    expect(await decision).toMatchObject({ outcome: 'aborted', reason: 'closed' });
    await h.stop();

    const resumed: ConfirmDecision[] = [];
    h = await startHarness({ mode, clock, api });
    await seed.start(h.bus, {
      resume: {
        'sql.delete': async (settled) => {
          resumed.push(settled);
          await seed.purge(settled);
        },
      },
    });
    expect(seed.gate.pending()).toMatchObject([{ restored: true, requester: String(ALICE.id) }]);
    const decided = new Promise((resolve) => seed.gate.on('decided', resolve));
    await h.feed(api.updates.message('确认', { date: T0 + 2 }));
    await decided;
    expect(resumed).toMatchObject([{ outcome: 'confirmed' }]);
    expect(seed.executed).toBe(1);
    expect(h.bus.size.inbound).toBe(0);
  });
});
