// Messages, mentions, threads and clicks from Discord, through the real Chat SDK and its Discord
// adapter, into the bus: what the bus gets, with Discord's own order.
import { comparePlatformOrder } from '@parley/bus';
import { createManualClock, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeOfId } from '../src/index.js';
import { snowflakeAt } from '../src/testing.js';
import { ALICE, APP_ID, CHANNEL, CHAT_ID, type DiscordHarness, GUILD, startDiscord } from './helpers.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
let clock: ManualClock;
let h: DiscordHarness;

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  h = await startDiscord(clock);
});
afterEach(async () => {
  await h.close();
});

describe('messages from Discord', () => {
  it('hands a message in a channel to the bus with its author, chat, id and time', async () => {
    const id = snowflakeAt(T0, 7);
    expect((await h.standIn.message(ALICE, 'status please', { id })).status).toBe(200);
    await h.received(1);
    expect(h.inbound[0]).toMatchObject({
      channel: 'chat-sdk',
      chatId: CHAT_ID,
      senderId: ALICE.id,
      text: 'status please',
      kind: 'message',
      eventId: id,
      createdAt: T0,
      senderIsBot: false,
      fromSelf: false,
      order: { scope: `chat-sdk:${CHAT_ID}`, position: [T0 - 1_420_070_400_000, 7] },
    });
    expect(h.inbound[0]?.threadId).toBeUndefined();
  });

  it('gives a mention the thread Discord starts for it, and keeps the chat of its channel', async () => {
    await h.standIn.message(ALICE, 'deploy', { mention: true });
    await h.received(1);
    const [thread] = [...h.standIn.threads.keys()];
    expect(h.inbound[0]).toMatchObject({
      chatId: CHAT_ID,
      threadId: `discord:${GUILD}:${CHANNEL}:${thread}`,
      senderId: ALICE.id,
    });
    expect(h.inbound[0]?.text).toBe('deploy'); // "<@app> deploy": the mention of the bot removed
    expect(h.inbound[0]?.sessionKey).toContain(String(thread));
  });

  it('keeps the mentions of a message that does not mention the bot', async () => {
    await h.standIn.message(ALICE, '<@300000000000000002> please review');
    await h.received(1);
    expect(h.inbound[0]?.text).toBe('<@300000000000000002> please review');
  });

  it('orders two messages of one millisecond by their snowflakes, not by their equal stamps', async () => {
    await h.standIn.message(ALICE, 'first', { id: snowflakeAt(T0, 2) });
    await h.standIn.message(ALICE, 'second', { id: snowflakeAt(T0, 1) });
    await h.received(2);
    const [first, second] = h.inbound;
    expect(first?.createdAt).toBe(second?.createdAt);
    expect(comparePlatformOrder(second?.order, first?.order)).toBe('before');
  });

  it('marks a message of another bot as from a bot', async () => {
    await h.standIn.message({ id: '300000000000000009', username: 'ci' }, 'build green', { bot: true });
    await h.received(1);
    expect(h.inbound[0]).toMatchObject({ senderIsBot: true, fromSelf: false });
  });

  it('reads no order from an id that is no snowflake, and none for a platform it does not know', () => {
    expect(placeOfId('discord', 'abc')).toBeUndefined();
    expect(placeOfId('discord', (1n << 64n).toString())).toBeUndefined();
    expect(placeOfId('teams', '1700000000000')).toBeUndefined();
    expect(placeOfId('slack', '1700000000.000100')).toEqual({ position: [1_700_000_000, 100] });
    expect(placeOfId('slack', '1700000000.1')).toBeUndefined();
    expect(APP_ID).toMatch(/^\d+$/);
  });
});
