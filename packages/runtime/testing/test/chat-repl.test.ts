// runChatRepl through the public API: typed lines become messages and clicks on a fake channel
// attached to a real bus; built-in and host commands, usage errors, failures, and misuse.
import { createMessageBus } from '@parley/bus';
import { describe, expect, it } from 'vitest';
import { createChatDriver, createFakeChannel, MAX_REPL_COMMANDS, runChatRepl } from '../src/index.js';

async function* linesOf(...lines: string[]): AsyncGenerator<string> {
  yield* lines;
}

async function setUp() {
  const channel = createFakeChannel({ channel: 'feishu' });
  const bus = createMessageBus();
  await bus.attach(channel);
  await bus.publishOutbound({
    channel: 'feishu',
    chatId: 'oc_ops',
    text: 'confirm?',
    card: {
      buttons: [
        { label: '确认 Confirm', value: 'yes' },
        { label: '取消 Cancel', value: 'no' },
      ],
    },
  });
  const driver = createChatDriver({ channel, chatId: 'oc_ops' });
  const printed: string[] = [];
  const print = (text: string): void => void printed.push(text);
  const from = () => channel.delivered.map((d) => `${d.input.senderId}: ${d.input.text ?? ''}`);
  return { channel, bus, driver, printed, print, from };
}

describe('runChatRepl', () => {
  it('says plain lines as the user, speaks and clicks as others, settles and prompts after each line', async () => {
    const { bus, driver, printed, print, from, channel } = await setUp();
    let settled = 0;
    let prompts = 0;
    await runChatRepl({
      lines: linesOf('hello', '', '/as bob 确认 please', '/click 确认', '/click 取消 bob', '/help'),
      driver,
      user: 'alice',
      print,
      help: '  /table  the table',
      settle: async () => void settled++,
      prompt: () => void prompts++,
    });
    expect(from().slice(0, 2)).toEqual(['alice: hello', 'bob: 确认 please']);
    expect(channel.delivered.slice(2).map((d) => [d.input.senderId, d.input.kind, d.input.action])).toEqual([
      ['alice', 'card_action', 'yes'],
      ['bob', 'card_action', 'no'],
    ]);
    expect(settled).toBe(4);
    expect(prompts).toBe(7);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain('/click <label> [user]');
    expect(printed[0]?.endsWith('  /table  the table')).toBe(true);
    await bus.close();
  });

  it('runs host commands, prints their answers, and stops at /quit', async () => {
    const { bus, driver, printed, print, from } = await setUp();
    await runChatRepl({
      lines: linesOf('/table', '/silent x y', '/quit', 'never said'),
      driver,
      user: 'alice',
      print,
      commands: { table: async () => '#1 paid', silent: (rest) => void printed.push(`rest=${rest}`) },
    });
    expect(printed).toEqual(['#1 paid', 'rest=x y']);
    expect(from()).toEqual([]);
    await bus.close();
  });

  it('prints usage, unknown commands and failed actions, and goes on', async () => {
    const { bus, driver, printed, print, from } = await setUp();
    await runChatRepl({
      lines: linesOf('/as bob', '/click', '/frobnicate', '/click 不存在', 'still here'),
      driver,
      user: 'alice',
      print,
    });
    expect(printed.slice(0, 3)).toEqual([
      '(usage of /as: see /help)',
      '(usage of /click: see /help)',
      '(unknown command /frobnicate: see /help)',
    ]);
    expect(printed[3]).toMatch(/^\(.*no button labelled/);
    expect(from()).toEqual(['alice: still here']);
    await bus.close();
  });

  it('prints what a command or settle throws, including non-errors', async () => {
    const { bus, driver, printed, print } = await setUp();
    await runChatRepl({
      lines: linesOf('/boom', 'hi'),
      driver,
      user: 'alice',
      print,
      commands: {
        boom: () => {
          throw new Error('exploded');
        },
      },
      settle: () => Promise.reject('not an error'),
    });
    expect(printed).toEqual(['(exploded)', '(not an error)']);
    await bus.close();
  });

  it('refuses a missing user or print, too many commands, and a command named like a built-in one', async () => {
    const { bus, driver, print } = await setUp();
    const base = { lines: linesOf(), driver, user: 'alice', print };
    const tooMany = Object.fromEntries(
      Array.from({ length: MAX_REPL_COMMANDS + 1 }, (_, i) => [`c${i}`, () => '']),
    );
    for (const bad of [
      { ...base, user: '' },
      { ...base, print: undefined as unknown as (text: string) => void },
      { ...base, commands: tooMany },
      { ...base, commands: { click: () => 'x' } },
    ]) {
      await expect(runChatRepl(bad)).rejects.toMatchObject({ code: 'invalid_argument' });
    }
    await bus.close();
  });
});
