// The Chat SDK's Teams adapter (and the Teams SDK's own JWT validation) against the exported Bot
// Framework stand-in: signed activities in, the Bot Connector API out, Adaptive Card clicks as card
// events (Action.Execute invokes and Action.Submit messages), refusals and rate limits as typed
// errors.
import type { BusEvents } from '@parley/bus';
import { createManualClock, isParleyError, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PARLEY_ACTION_ID } from '../src/index.js';
import { ALICE, startTeams, type TeamsHarness } from './teams-harness.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
let clock: ManualClock;
let h: TeamsHarness;
const dropped: BusEvents['dropped'][] = [];

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  h = await startTeams(clock);
  dropped.length = 0;
  h.bus.on('dropped', (event) => dropped.push(event));
});
afterEach(async () => {
  await h.close();
});

/** The bus chat id of the stand-in's channel: the Chat SDK's Teams thread id. */
const chatIdOf = (): string =>
  h.teams.encodeThreadId({ conversationId: h.standIn.conversationId, serviceUrl: h.standIn.url });

describe('Teams through the Chat SDK', () => {
  it('hands a signed message that mentions the bot to the bus, without the mention', async () => {
    const answer = await h.standIn.message(ALICE, '确认', { id: 'm-1', mention: true });
    expect(answer.status).toBe(200);
    await h.received(1);
    expect(h.inbound[0]).toMatchObject({
      channel: 'chat-sdk',
      chatId: chatIdOf(),
      senderId: ALICE.id,
      text: '确认',
      kind: 'message',
      eventId: 'm-1',
      createdAt: T0,
      senderIsBot: false,
      fromSelf: false,
    });
    expect(h.inbound[0]?.order).toBeUndefined(); // Teams' activity ids say nothing of order
  });

  it('refuses an activity whose token the stand-in did not sign (401), and the bus gets nothing', async () => {
    const forged = await h.standIn.message(ALICE, 'let me in', { forged: true });
    expect(forged.status).toBe(401);
    await h.standIn.message(ALICE, 'signed');
    await h.received(1);
    expect(h.inbound.map((message) => message.text)).toEqual(['signed']);
  });

  it('posts a card as an Adaptive Card with one Action.Submit per button, carrying its value', async () => {
    const result = await h.bus.publishOutbound({
      channel: 'chat-sdk',
      chatId: chatIdOf(),
      text: 'Deploy v2?',
      card: {
        title: 'Confirm',
        buttons: [
          { label: 'Confirm', value: { confirmation: 'c1.confirm' }, style: 'primary' },
          { label: 'Cancel', value: { confirmation: 'c1.cancel' } },
        ],
      },
    });
    expect(result.status).toBe('sent');
    const sent = h.standIn.sent.at(-1);
    expect(sent?.conversationId).toBe(h.standIn.conversationId);
    expect(sent?.buttons).toEqual([
      { title: 'Confirm', data: { actionId: PARLEY_ACTION_ID, value: '{"confirmation":"c1.confirm"}' } },
      { title: 'Cancel', data: { actionId: PARLEY_ACTION_ID, value: '{"confirmation":"c1.cancel"}' } },
    ]);
    expect(JSON.stringify(sent?.activity)).toContain('Deploy v2?');
  });

  it('hands a click (an adaptiveCard/action invoke) and an Action.Submit to the bus as card events', async () => {
    await h.bus.publishOutbound({
      channel: 'chat-sdk',
      chatId: chatIdOf(),
      text: 'Deploy v2?',
      card: { buttons: [{ label: 'Confirm', value: { confirmation: 'c1.confirm' } }] },
    });
    const card = h.standIn.sent.at(-1);
    if (card === undefined) throw new Error('no card was sent');
    expect((await h.standIn.click(ALICE, card, 0, { id: 'click-1' })).status).toBe(200);
    expect((await h.standIn.click(ALICE, card, 0, { id: 'click-2', as: 'submit' })).status).toBe(200);
    await h.received(2);
    expect(h.inbound).toMatchObject([
      {
        kind: 'card_action',
        senderId: ALICE.id,
        action: { confirmation: 'c1.confirm' },
        eventId: 'action:click-1',
      },
      {
        kind: 'card_action',
        senderId: ALICE.id,
        action: { confirmation: 'c1.confirm' },
        eventId: 'action:click-2',
      },
    ]);
    expect(h.inbound[0]?.chatId).toBe(chatIdOf());
  });

  it('leaves the time of a sent message to the bus: the Chat SDK stamps it with the system clock', async () => {
    clock.advance(500);
    const result = await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: chatIdOf(), text: 'deployed' });
    expect(result).toMatchObject({ status: 'sent' });
    expect(result.status === 'sent' ? result.sentAt : 'not sent').toBeUndefined();
  });

  it('rejects a Bot Connector 429 as rate_limited and a 403 as platform_error', async () => {
    h.standIn.failNext(429);
    const limited = await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: chatIdOf(), text: 'one' });
    h.standIn.failNext(403);
    const refused = await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: chatIdOf(), text: 'two' });
    expect([limited, refused]).toMatchObject([
      { status: 'rejected', code: 'send_failed' },
      { status: 'rejected', code: 'send_failed' },
    ]);
    const [first, second] = dropped.map((event) => event.error);
    expect(isParleyError(first, 'rate_limited')).toBe(true);
    expect(first).toMatchObject({ details: { platform: 'teams' } });
    expect(isParleyError(second, 'platform_error')).toBe(true);
    expect(h.standIn.sent).toHaveLength(0);
  });
});
