// The channel-confirmation seed on Discord, through the real Chat SDK and its Discord adapter:
// the prompt goes out as a card of buttons (Discord components), the requester's click or 确认
// confirms, another member's click is refused, a reply Discord stamped before the prompt does not
// count, and a click without Discord's signature never reaches the bus.
import { sessionKeyOf } from '@parley/bus';
import {
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  createConfirmGate,
} from '@parley/confirm';
import { createManualClock, type ManualClock } from '@parley/core';
import { createProgress } from '@parley/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DiscordPostedMessage as PostedMessage, snowflakeAt } from '../src/testing.js';
import { ALICE, CHAT_ID, type DiscordHarness, MALLORY, startDiscord } from './helpers.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } };

let clock: ManualClock;
let h: DiscordHarness;
let gate: ConfirmGate;
const refused: ConfirmEvents['refused'][] = [];
const ignored: ConfirmEvents['ignored'][] = [];
const progress = createProgress();

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  h = await startDiscord(clock);
  gate = createConfirmGate({ bus: h.bus, clock });
  refused.length = 0;
  ignored.length = 0;
  gate.on('refused', (event) => {
    refused.push(event);
    progress.poke();
  });
  gate.on('ignored', (event) => {
    ignored.push(event);
    progress.poke();
  });
  await gate.ready;
});
afterEach(async () => {
  await gate.close();
  await h.close();
});

/** Asks Alice, in the channel, to confirm the delete; resolves once Discord has the prompt. */
async function requestDelete(): Promise<{ decision: Promise<ConfirmDecision>; prompt: PostedMessage }> {
  const prompted = new Promise((resolve) => gate.on('prompted', resolve));
  const decision = gate.request({
    sessionKey: sessionKeyOf({ channel: 'chat-sdk', chatId: CHAT_ID }),
    requester: ALICE.id,
    action: ACTION,
    summary: ACTION.args.sql,
  });
  await prompted;
  const prompt = h.standIn.sent.at(-1) as PostedMessage;
  return { decision, prompt };
}

function buttonsOf(prompt: PostedMessage) {
  return prompt.components?.flatMap((row) => row.components) ?? [];
}

describe('the confirmation seed on Discord', () => {
  it('posts the prompt as a card with confirm and cancel buttons', async () => {
    const { prompt } = await requestDelete();
    expect(buttonsOf(prompt).map((button) => button.label)).toEqual(['确认 Confirm', '取消 Cancel']);
    expect(JSON.stringify(prompt.embeds)).toContain('DELETE FROM orders');
    for (const button of buttonsOf(prompt)) expect(button.custom_id.length).toBeLessThanOrEqual(100);
  });

  it("confirms on the requester's click and refuses another member's", async () => {
    const { decision, prompt } = await requestDelete();
    expect((await h.standIn.click(MALLORY, prompt, 0)).status).toBe(200);
    await progress.waitFor(() => refused.length === 1, "the gate's refusal of Mallory's click");
    expect(refused).toMatchObject([{ code: 'not_allowed', senderId: MALLORY.id }]);
    await h.standIn.click(ALICE, prompt, 0);
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card', decidedBy: ALICE.id });
    expect((await gate.authorize(await decision, ACTION)).ok).toBe(true);
  });

  it('ignores a reply Discord stamped before the prompt within the same millisecond, counts one after it', async () => {
    const { decision, prompt } = await requestDelete();
    const low = Number(BigInt(prompt.id) & 0x3fffffn);
    expect(prompt.id).toBe(snowflakeAt(T0, low)); // the prompt's millisecond is T0
    await h.standIn.message(ALICE, '确认', { id: snowflakeAt(T0, low - 1) }); // the same ms, before it
    await progress.waitFor(() => ignored.length >= 1, 'the stale reply to be ignored');
    expect(ignored[0]).toMatchObject({ code: 'stale_reply' });
    await h.standIn.message(ALICE, '确认', { id: snowflakeAt(T0, low + 1) }); // the same ms, after it
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: ALICE.id });
  });

  it('answers a click without a valid Ed25519 signature 401, and the bus never sees it', async () => {
    const { prompt } = await requestDelete();
    expect((await h.standIn.click(ALICE, prompt, 0, { forged: true })).status).toBe(401);
    expect(h.inbound.filter((message) => message.kind === 'card_action')).toEqual([]);
    expect(gate.pending()).toHaveLength(1);
  });
});
