// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/chat-sdk and @parley/chat-sdk/testing, compiled and run; each `// value` comment is checked.
import { createMemoryState } from '@chat-adapter/state-memory';
import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { createTeamsAdapter } from '@chat-adapter/teams';
import { Chat, ConsoleLogger } from 'chat';
import { describe, expect, it } from 'vitest';
import {
  CHAT_SDK_ADAPTER_ERROR_CODES,
  type ChatSdkAdapter,
  ChatSdkAdapterError,
  type ChatSdkAdapterErrorCode,
  type ChatSdkAdapterEvents,
  type ChatSdkAdapterOptions,
  type ChatSdkBot,
  type ChatSdkSkipReason,
  createChatSdkAdapter,
  type IdPlace,
  PARLEY_ACTION_ID,
  placeOfId,
} from '../src/index.js';
import {
  type BotAnswer,
  type BotEndpoint,
  createDiscordStandIn,
  createTeamsStandIn,
  type DiscordMessageMore,
  type DiscordPostedMessage,
  type DiscordStandIn,
  type DiscordStandInOptions,
  type DiscordUser,
  settledFetch,
  snowflakeAt,
  type TeamsDeliveryMore,
  type TeamsSentActivity,
  type TeamsStandIn,
  type TeamsStandInOptions,
  type TeamsUser,
  trustTeamsStandIn,
} from '../src/testing.js';
import { expectEveryPrintedLineChecked, expectPrinted, log } from '../../../../tests/support/printed.js';

expectEveryPrintedLineChecked();

describe('@parley/chat-sdk examples', () => {
  it('createChatSdkAdapter', async () => {
    const bot = new Chat({ userName: 'parley', adapters: {}, state: createMemoryState(), logger: 'silent' });
    const chat = createChatSdkAdapter({ bot });
    const bus = createMessageBus();
    const detach = await bus.attach(chat);
    log(chat.channel); // chat-sdk
    detach();
    expectPrinted('chat-sdk');
  });

  it('PARLEY_ACTION_ID', () => {
    log(PARLEY_ACTION_ID); // parley
    expectPrinted('parley');
  });

  it('placeOfId and IdPlace', () => {
    log(placeOfId('discord', '1446501120000000005')); // { position: [ 344872741699, 917509 ], at: 1764943141699 }
    log(placeOfId('teams', '1:abc')); // undefined
    expectPrinted('{ position: [ 344872741699, 917509 ], at: 1764943141699 }');
    expectPrinted('undefined');
    const place: IdPlace = { position: [1_700_000_000, 100] };
    expect(place.position).toHaveLength(2);
  });

  it('the errors', () => {
    log(CHAT_SDK_ADAPTER_ERROR_CODES.includes('rate_limited')); // true
    expectPrinted('true');
    const code: ChatSdkAdapterErrorCode = 'platform_error';
    expect(CHAT_SDK_ADAPTER_ERROR_CODES).toContain(code);
    const error = new ChatSdkAdapterError('rate_limited', 'Discord: 429', {
      details: { retryAfterMs: 1500 },
    });
    log(isParleyError(error, 'rate_limited'), error.details.retryAfterMs); // true 1500
    expectPrinted('true 1500');
  });

  it('the types', () => {
    const post = (bot: ChatSdkBot, threadId: string) => bot.thread(threadId).post('hello');
    const options = (bot: ChatSdkAdapterOptions['bot']): ChatSdkAdapterOptions => ({ bot, channel: 'chat' });
    const reason: ChatSdkSkipReason = 'not_connected';
    const describeSkip = (event: ChatSdkAdapterEvents['skipped']): string =>
      `${event.reason} ${event.threadId}`;
    const name = (adapter: ChatSdkAdapter): string => adapter.channel;
    expect(describeSkip({ reason, threadId: 't' })).toBe('not_connected t');
    expect([typeof post, typeof options, typeof name]).toEqual(['function', 'function', 'function']);
  });
});

describe('@parley/chat-sdk/testing examples', () => {
  it('createTeamsStandIn', async () => {
    const teams = await createTeamsStandIn({ bot: async () => new Response('{}') });
    const answer = await teams.message({ id: '29:alice', name: 'Alice' }, 'hello');
    log(answer.status, teams.url.startsWith('http://127.0.0.1:')); // 200 true
    await teams.close();
    expectPrinted('200 true');
  });

  it('trustTeamsStandIn', async () => {
    const standIn = await createTeamsStandIn();
    const logger = new ConsoleLogger('silent');
    const teams = createTeamsAdapter({ ...standIn.adapterConfig, logger });
    trustTeamsStandIn(teams, standIn);
    await standIn.close();
  });

  it('createDiscordStandIn', async () => {
    const discord = await createDiscordStandIn({ bot: async () => new Response('{}') });
    const answer = await discord.message({ id: '300000000000000001', username: 'alice' }, 'hello');
    log(answer.status, discord.url.endsWith('/api/v10')); // 200 true
    await discord.close();
    expectPrinted('200 true');
  });

  it('settledFetch', async () => {
    const realFetch = globalThis.fetch;
    globalThis.fetch = settledFetch(realFetch);
    // … the test …
    const discord = await createDiscordStandIn();
    const answer = await fetch(`${discord.url}/channels/${discord.channelId}`);
    expect(answer.status).toBe(401); // no bot token
    await discord.close();
    globalThis.fetch = realFetch;
  });

  it('snowflakeAt', () => {
    log(snowflakeAt(Date.UTC(2015, 0, 1, 0, 0, 0, 1), 5)); // 4194309
    expectPrinted('4194309');
  });

  it('the types', () => {
    const inProcess: BotEndpoint = async () => new Response('ok');
    const overHttp: BotEndpoint = 'http://127.0.0.1:3000/api/webhooks/teams';
    const accepted = (answer: BotAnswer): boolean => answer.status === 200;
    const alice: TeamsUser = { id: '29:alice', name: 'Alice' };
    const labels = (sent: TeamsSentActivity): string[] => sent.buttons.map((button) => button.title);
    const options: TeamsStandInOptions = { appId: '00000000-0000-0000-0000-000000000001' };
    const cardsSent = (teams: TeamsStandIn): number => teams.sent.filter((a) => a.buttons.length > 0).length;
    const forged: TeamsDeliveryMore = { forged: true };
    const discordAlice: DiscordUser = { id: '300000000000000001', username: 'alice' };
    const discordLabels = (message: DiscordPostedMessage): string[] =>
      (message.components ?? []).flatMap((row) => row.components.map((button) => button.label));
    const discordOptions: DiscordStandInOptions = { channelId: '200000000000000009' };
    const inThread: DiscordMessageMore = { channelId: '400000000000000001', mention: true };
    const cards = (discord: DiscordStandIn) => discord.sent.filter((m) => (m.components?.length ?? 0) > 0);
    expect(accepted({ status: 200, text: '' })).toBe(true);
    expect(
      labels({ id: '1', conversationId: 'c', buttons: [{ title: 'OK', data: {} }], activity: {} }),
    ).toEqual(['OK']);
    expect(discordLabels({ id: '1', channel_id: '2' })).toEqual([]);
    expect([typeof inProcess, typeof overHttp, typeof cardsSent, typeof cards]).toEqual([
      'function',
      'string',
      'function',
      'function',
    ]);
    expect([
      alice.id,
      discordAlice.id,
      options.appId,
      discordOptions.channelId,
      forged.forged,
      inThread.mention,
    ]).toHaveLength(6);
  });
});
