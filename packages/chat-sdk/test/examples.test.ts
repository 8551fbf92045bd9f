// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/chat-sdk, compiled and run; each `// value` comment is checked.
import { formatWithOptions } from 'node:util';
import { createMemoryState } from '@chat-adapter/state-memory';
import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { Chat } from 'chat';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

let logs: string[] = [];
function log(...args: unknown[]): void {
  logs.push(formatWithOptions({}, ...args));
}
function expectPrinted(text: string): void {
  expect(logs).toContain(text);
  logs.splice(logs.indexOf(text), 1);
}
beforeEach(() => {
  logs = [];
});
afterEach(() => {
  expect(logs).toEqual([]); // every line printed was checked
});

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
