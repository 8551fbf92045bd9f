// The adapter over a stand-in of the Chat SDK bot itself (its handler registration and posts), for
// what no Discord payload carries: platforms without an id order (Teams), the host's own order,
// edits without an edit time, authors whose bot flag is unknown, and each shape of Chat SDK error.
import { createMessageBus, type InboundMessage } from '@parley/bus';
import { createManualClock, isParleyError } from '@parley/core';
import { ChatError, type Message, RateLimitError, type Thread } from 'chat';
import { describe, expect, it } from 'vitest';
import { type ChatSdkAdapterEvents, type ChatSdkBot, createChatSdkAdapter } from '../src/index.js';

type Handler = (...args: unknown[]) => Promise<void>;

function stubBot(post: (message: unknown) => Promise<unknown>) {
  const handlers: Record<string, Handler> = {};
  const register = (name: string) => (first: unknown, second?: unknown) => {
    handlers[name] = (typeof first === 'function' ? first : second) as Handler;
  };
  const bot = {
    onNewMention: register('mention'),
    onSubscribedMessage: register('subscribed'),
    onNewMessage: register('pattern'),
    onMessageUpdated: register('updated'),
    onAction: register('action'),
    thread: () => ({ post }),
    channel: () => ({ post }),
  } as unknown as ChatSdkBot; // only what the adapter calls
  return { bot, handlers };
}

const TEAMS_THREAD = { id: 'teams:conv1:msg1', channelId: 'teams:conv1' } as Thread;

function teamsMessage(more: Partial<{ editedAt: Date; isBot: boolean | 'unknown' }> = {}): Message {
  return {
    id: 'act-1',
    text: 'approve',
    raw: {},
    author: { userId: 'u1', userName: 'u', fullName: 'U', isBot: more.isBot ?? 'unknown', isMe: false },
    metadata: { dateSent: new Date(7_000), edited: more.editedAt !== undefined, editedAt: more.editedAt },
  } as unknown as Message; // the fields the adapter reads
}

async function connected(
  bot: ChatSdkBot,
  order?: (platform: string, message: Message) => number[] | undefined,
) {
  const adapter = createChatSdkAdapter({ bot, ...(order === undefined ? {} : { order }) });
  const bus = createMessageBus({ clock: createManualClock({ now: 10_000 }) });
  const inbound: InboundMessage[] = [];
  bus.intercept({
    name: 'recorder', // records every inbound message and passes it on
    intercept: (message) => {
      inbound.push(message);
      return false;
    },
  });
  await bus.attach(adapter);
  return { adapter, bus, inbound };
}

describe('platforms without an id order', () => {
  it("gives a Teams message no order, its thread and stamp, and an edit without an edit time 'unknown'", async () => {
    const { bot, handlers } = stubBot(async () => ({ id: 'x', metadata: { dateSent: new Date(9_000) } }));
    const { inbound } = await connected(bot);
    await handlers['subscribed']?.(TEAMS_THREAD, teamsMessage());
    await handlers['updated']?.(TEAMS_THREAD, teamsMessage({ isBot: true }));
    expect(inbound[0]).toMatchObject({
      chatId: 'teams:conv1',
      threadId: 'teams:conv1:msg1',
      createdAt: 7_000,
      senderIsBot: false,
    });
    expect(inbound[0]?.order).toBeUndefined();
    expect(inbound[1]).toMatchObject({ kind: 'edit', eventId: 'act-1:edit:unknown', senderIsBot: true });
  });

  it("takes the host's order for them, scoped by the chat", async () => {
    const { bot, handlers } = stubBot(async () => ({}));
    const { inbound } = await connected(bot, (platform) => (platform === 'teams' ? [42] : undefined));
    await handlers['mention']?.(TEAMS_THREAD, teamsMessage({ editedAt: new Date(8_000) }));
    expect(inbound[0]?.order).toEqual({ scope: 'chat-sdk:teams:conv1', position: [42] });
  });

  it("reports neither time nor order for a Teams receipt (the Chat SDK's dateSent is its own clock)", async () => {
    const { bot } = stubBot(async () => ({ id: 'act-9', metadata: { dateSent: new Date(9_000) } }));
    const { bus } = await connected(bot);
    const result = await bus.publishOutbound({ channel: 'chat-sdk', chatId: 'teams:conv1', text: 'hi' });
    expect(result).toMatchObject({ status: 'sent' });
    expect(result.status === 'sent' ? [result.sentAt, result.order] : 'none').toEqual([undefined, undefined]);
  });

  it('hands a click without a platform interaction id to the bus without an event id', async () => {
    const { bot, handlers } = stubBot(async () => ({}));
    const { inbound } = await connected(bot);
    const user = { userId: 'u1', userName: 'u', fullName: 'U', isBot: 'unknown', isMe: false };
    await handlers['action']?.({
      actionId: 'parley',
      value: '{"confirmation":"c"}',
      threadId: 'teams:conv1',
      thread: null,
      user,
      raw: null,
    });
    expect(inbound[0]).toMatchObject({
      kind: 'card_action',
      chatId: 'teams:conv1',
      action: { confirmation: 'c' },
      senderIsBot: false,
    });
    expect(inbound[0]?.eventId).toBeUndefined();
  });

  it('passes over a message while no bus is attached', async () => {
    const { bot, handlers } = stubBot(async () => ({}));
    const adapter = createChatSdkAdapter({ bot });
    const skipped: ChatSdkAdapterEvents['skipped'][] = [];
    adapter.on('skipped', (event) => skipped.push(event));
    await handlers['pattern']?.(TEAMS_THREAD, teamsMessage());
    expect(skipped).toEqual([{ reason: 'not_connected', threadId: 'teams:conv1:msg1' }]);
  });
});

describe('the Chat SDK errors a send rejects with', () => {
  const cases: [string, unknown, string, Record<string, unknown>][] = [
    ['RateLimitError (ms)', new RateLimitError('slow down', 2_000), 'rate_limited', { retryAfterMs: 2_000 }],
    [
      'AdapterRateLimitError (s)',
      Object.assign(new Error('Rate limited'), { code: 'RATE_LIMITED', retryAfter: 3 }),
      'rate_limited',
      { retryAfterMs: 3_000 },
    ],
    [
      'a 429 without retry_after',
      Object.assign(new Error('429'), {
        code: 'NETWORK_ERROR',
        originalError: { status: 429, message: 'busy' },
      }),
      'rate_limited',
      {},
    ],
    [
      'a ChatError code',
      new ChatError('no modals', 'NOT_IMPLEMENTED'),
      'platform_error',
      { chatCode: 'NOT_IMPLEMENTED' },
    ],
    [
      'a network error without status',
      Object.assign(new Error('ECONNRESET'), { code: 'NETWORK_ERROR' }),
      'network_error',
      {},
    ],
    ['a thrown string', 'boom', 'network_error', {}],
  ];
  for (const [name, thrown, code, details] of cases) {
    it(`${name} → ${code}`, async () => {
      const { bot } = stubBot(async () => {
        throw thrown;
      });
      const { adapter } = await connected(bot);
      const error = await Promise.resolve(
        adapter.send({ channel: 'chat-sdk', chatId: 'slack:C1', text: 'x', sessionKey: 's', createdAt: 0 }),
      ).catch((failure: unknown) => failure);
      expect(isParleyError(error, code)).toBe(true);
      expect(error).toMatchObject({ details: { platform: 'slack', ...details }, cause: thrown });
    });
  }
});
