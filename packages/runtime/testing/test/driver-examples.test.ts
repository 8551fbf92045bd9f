// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// The TSDoc @examples of progress.ts, chat-driver.ts and chat-repl.ts, compiled and run; each console.log is an
// assertion here (examples.test.ts is past the size guide for test files).
import { createMessageBus } from '@parley/bus';
import { describe, expect, it } from 'vitest';
import {
  type ChatDriver,
  type ChatDriverOptions,
  type ChatReplOptions,
  createChatDriver,
  createFakeChannel,
  createFakeClock,
  createProgress,
  type Progress,
  type ProgressOptions,
  runChatRepl,
} from '../src/index.js';

describe('progress.ts examples', () => {
  it('ProgressOptions', () => {
    const options: ProgressOptions = { stallMs: 10 * 60_000 };
  });

  it('Progress', () => {
    const progress: Progress = createProgress();
    expect(progress.waiting).toBe(0);
  });

  it('createProgress', async () => {
    const progress = createProgress();
    let replies = 0;
    const replied = progress.waitFor(() => replies >= 1, 'the first reply');
    replies++;
    progress.poke();
    await replied;
    expect(progress.waiting).toBe(0);
  });
});

describe('chat-driver.ts examples', () => {
  it('ChatDriverOptions', () => {
    const clock = createFakeClock();
    const options: ChatDriverOptions = {
      channel: createFakeChannel({ clock }),
      chatId: 'ops',
      clock,
      stepMs: 500,
    };
  });

  it('ChatDriver', () => {
    const driver: ChatDriver = createChatDriver({ channel: createFakeChannel(), chatId: 'ops' });
    expect(driver.queued).toBe(0);
  });

  it('createChatDriver', async () => {
    const clock = createFakeClock({ now: Date.UTC(2026, 0, 5, 9) });
    const channel = createFakeChannel({ channel: 'feishu', clock });
    const bus = createMessageBus({ clock });
    await bus.attach(channel);
    const lines: string[] = [];
    const driver = createChatDriver({ channel, chatId: 'oc_ops', clock, log: (line) => lines.push(line) });
    await driver.say('alice', '删除 3 号订单');
    await driver.say('carol', 'hello', 'oc_finance');
    expect([driver.queued, lines]).toEqual([2, ['alice: 删除 3 号订单', 'carol (in oc_finance): hello']]);
    expect(new Date(clock.now()).toISOString()).toBe('2026-01-05T09:00:02.000Z');
    await bus.close();
  });
});

describe('chat-repl.ts examples', () => {
  it('ChatReplOptions', () => {
    async function* typed(): AsyncGenerator<string> {
      yield '/quit';
    }
    const driver = createChatDriver({ channel: createFakeChannel(), chatId: 'ops' });
    const options: ChatReplOptions = {
      lines: typed(),
      driver,
      user: 'alice',
      print: (text) => console.log(text),
    };
  });

  it('runChatRepl', async () => {
    const channel = createFakeChannel({ channel: 'feishu' });
    const bus = createMessageBus();
    await bus.attach(channel);
    const driver = createChatDriver({ channel, chatId: 'oc_ops' });
    async function* typed(): AsyncGenerator<string> {
      yield '删除 3 号订单';
      yield '/as bob 确认';
      yield '/count';
      yield '/quit';
    }
    const printed: string[] = [];
    const commands = { count: () => `${driver.queued} message(s) queued` };
    await runChatRepl({
      lines: typed(),
      driver,
      user: 'alice',
      print: (text) => printed.push(text),
      commands,
    });
    expect(printed).toEqual(['2 message(s) queued']);
    expect(channel.delivered.map((d) => `${d.input.senderId}: ${d.input.text}`)).toEqual([
      'alice: 删除 3 号订单',
      'bob: 确认',
    ]);
    await bus.close();
  });
});
