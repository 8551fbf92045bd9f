// What the bus sends, through the real Chat SDK and its Discord adapter to Discord's REST API
// stand-in: where it goes, what Discord's answer says of its time and order, and Discord's
// refusals and rate limits as typed errors. Also edits, foreign and broken clicks, misuse.
import { createMemoryState } from '@chat-adapter/state-memory';
import { type BusEvents, comparePlatformOrder } from '@parley/bus';
import { createManualClock, isParleyError, type ManualClock } from '@parley/core';
import { Chat, Message } from 'chat';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChatSdkAdapterEvents, createChatSdkAdapter, PARLEY_ACTION_ID } from '../src/index.js';
import { snowflakeAt } from '../src/testing.js';
import { ALICE, CHANNEL, CHAT_ID, type DiscordHarness, GUILD, startDiscord } from './helpers.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
/** Discord's epoch in epoch ms: a snowflake's top bits count from it. */
const DISCORD_EPOCH_MS = 1_420_070_400_000;
let clock: ManualClock;
let h: DiscordHarness;
const dropped: BusEvents['dropped'][] = [];
const errors: ChatSdkAdapterEvents['error'][] = [];

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  h = await startDiscord(clock);
  dropped.length = 0;
  errors.length = 0;
  h.bus.on('dropped', (event) => dropped.push(event));
  h.adapter.on('error', (event) => errors.push(event));
});
afterEach(async () => {
  await h.close();
});

describe('sending to Discord', () => {
  it("posts text to the channel and reports Discord's snowflake as its time and order", async () => {
    clock.advance(1_234);
    const result = await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: CHAT_ID, text: 'deployed' });
    const posted = h.standIn.sent.at(-1);
    expect(posted).toMatchObject({ channel_id: CHANNEL, content: 'deployed' });
    expect(result).toMatchObject({
      status: 'sent',
      sentAt: T0 + 1_234,
      order: { scope: `chat-sdk:${CHAT_ID}`, position: [T0 + 1_234 - DISCORD_EPOCH_MS, 10] },
    });
    // Discord's snowflake of the posted message is its id
    expect(result.status === 'sent' ? result.messageId : undefined).toBe(posted?.id);
    const later = await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: CHAT_ID, text: 'again' });
    const orderOf = (r: typeof result) => (r.status === 'sent' ? r.order : undefined);
    expect(comparePlatformOrder(orderOf(result), orderOf(later))).toBe('before');
  });

  it('posts into a Discord thread when the message has one', async () => {
    const thread = '400000000000000001';
    h.standIn.threads.set(thread, CHANNEL);
    await h.bus.publishOutbound({
      channel: 'chat-sdk',
      chatId: CHAT_ID,
      threadId: `discord:${GUILD}:${CHANNEL}:${thread}`,
      text: 'in the thread',
    });
    expect(h.standIn.sent.at(-1)).toMatchObject({ channel_id: thread, content: 'in the thread' });
  });

  it("rejects a rate limit as rate_limited with Discord's retry_after in ms", async () => {
    h.standIn.failNext(429, { message: 'You are being rate limited.', retry_after: 1.5, global: false });
    const result = await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: CHAT_ID, text: 'x' });
    expect(result).toMatchObject({ status: 'rejected', code: 'send_failed' });
    const error = dropped[0]?.error;
    expect(isParleyError(error, 'rate_limited')).toBe(true);
    expect(error).toMatchObject({ details: { platform: 'discord', retryAfterMs: 1_500 } });
    expect(errors[0]?.error).toBe(error);
  });

  it("rejects Discord's refusal as platform_error with its status", async () => {
    h.standIn.failNext(403, { message: 'Missing Permissions', code: 50013 });
    await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: CHAT_ID, text: 'x' });
    expect(dropped[0]?.error).toMatchObject({ code: 'platform_error', details: { status: 403 } });
  });

  it('rejects a button value Discord cannot carry as platform_error, before any call', async () => {
    const posts = h.standIn.sent.length;
    await h.bus.publishOutbound({
      channel: 'chat-sdk',
      chatId: CHAT_ID,
      text: 'pick',
      card: { buttons: [{ label: 'long', value: 'x'.repeat(120) }] },
    });
    expect(dropped[0]?.error).toMatchObject({
      code: 'platform_error',
      details: { chatCode: 'VALIDATION_ERROR' },
    });
    expect(h.standIn.sent).toHaveLength(posts);
  });

  it('rejects a send Discord never answers as network_error', async () => {
    await h.standIn.close();
    await h.bus.publishOutbound({ channel: 'chat-sdk', chatId: CHAT_ID, text: 'x' });
    expect(dropped[0]?.error).toMatchObject({ code: 'network_error' });
  });
});

describe('edits and clicks', () => {
  const threadId = `discord:${GUILD}:${CHANNEL}`;

  it('hands an edit to the bus as kind edit, with an event id of its own', async () => {
    const id = snowflakeAt(T0, 3);
    const edited = new Message({
      id,
      threadId,
      text: 'status please (edited)',
      formatted: { type: 'root', children: [] },
      author: { userId: ALICE.id, userName: 'alice', fullName: 'alice', isBot: false, isMe: false },
      metadata: { dateSent: new Date(T0), edited: true, editedAt: new Date(T0 + 5_000) },
      attachments: [],
      raw: {},
    });
    await h.bot.processMessageUpdated({ adapter: h.discord, threadId, message: edited });
    await h.received(1);
    expect(h.inbound[0]).toMatchObject({
      kind: 'edit',
      text: 'status please (edited)',
      eventId: `${id}:edit:${T0 + 5_000}`,
      createdAt: T0,
    });
  });

  it('passes over a click whose value is not JSON, saying so', async () => {
    const skipped: ChatSdkAdapterEvents['skipped'][] = [];
    h.adapter.on('skipped', (event) => skipped.push(event));
    await h.bot.processAction(
      {
        adapter: h.discord,
        actionId: PARLEY_ACTION_ID,
        value: 'not json',
        messageId: snowflakeAt(T0, 1),
        threadId,
        user: { userId: ALICE.id, userName: 'alice', fullName: 'alice', isBot: false, isMe: false },
        raw: {},
      },
      undefined,
    );
    expect(skipped).toEqual([{ reason: 'bad_button_value', threadId }]);
    expect(h.inbound).toEqual([]);
  });
});

describe('before the bus attaches, and misuse', () => {
  it('passes over what comes in while no bus is attached', async () => {
    const bot = new Chat({
      userName: 'parley',
      adapters: { discord: h.discord },
      state: createMemoryState(),
      logger: 'silent',
    });
    await bot.initialize();
    const adapter = createChatSdkAdapter({ bot, channel: 'discord' });
    const skipped: ChatSdkAdapterEvents['skipped'][] = [];
    adapter.on('skipped', (event) => skipped.push(event));
    const user = { userId: ALICE.id, userName: 'alice', fullName: 'alice', isBot: false, isMe: false };
    await bot.processAction(
      {
        adapter: h.discord,
        actionId: PARLEY_ACTION_ID,
        value: '{}',
        messageId: '1',
        threadId: CHAT_ID,
        user,
        raw: {},
      },
      undefined,
    );
    expect(skipped).toEqual([{ reason: 'not_connected', threadId: CHAT_ID }]);
    expect(adapter.channel).toBe('discord');
    await bot.shutdown();
  });

  it('throws invalid_argument without a Chat SDK bot', () => {
    expect(() => createChatSdkAdapter({ bot: {} as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
