import type { ChatDriver } from './chat-driver.js';
import { TestingError } from './errors.js';

/** Most commands {@link runChatRepl} accepts besides its own. */
export const MAX_REPL_COMMANDS = 64;

/**
 * Options of {@link runChatRepl}.
 *
 * @example
 * ```ts
 * import { createChatDriver, createFakeChannel, type ChatReplOptions } from '@parley/testing';
 *
 * async function* typed(): AsyncGenerator<string> { yield '/quit'; }
 * const driver = createChatDriver({ channel: createFakeChannel(), chatId: 'ops' });
 * const options: ChatReplOptions = { lines: typed(), driver, user: 'alice', print: (text) => console.log(text) };
 * ```
 */
export interface ChatReplOptions {
  /** What the person types, a line at a time (e.g. `node:readline`'s interface); ends the session when done. */
  readonly lines: AsyncIterable<string>;
  /** The chat the person talks in. */
  readonly driver: Pick<ChatDriver, 'say' | 'click'>;
  /** Who the person is: plain lines are said as this user. */
  readonly user: string;
  /** Where answers to commands go (`/help`, errors, a command's text). */
  readonly print: (text: string) => void;
  /** Shown for `/help`, after the built-in commands. */
  readonly help?: string;
  /** More commands: `/name rest` calls `commands.name(rest)` and prints what it returns. */
  readonly commands?: Readonly<
    Record<string, (rest: string) => Promise<string | undefined> | string | undefined>
  >;
  /** Awaited after each message or click, e.g. until the bot answered. */
  readonly settle?: () => Promise<void>;
  /** Called when the REPL waits for the next line (e.g. `readline`'s `prompt`). */
  readonly prompt?: () => void;
}

/** The built-in commands, for `/help`. */
const BUILT_IN = `  /as <user> <text>      say something as another member (e.g. /as bob 确认)
  /click <label> [user]  click a button whose label starts with <label> on the latest card
  /help                  this text
  /quit                  leave (also the end of input)`;

/**
 * Runs an interactive chat session over a {@link ChatDriver}: each typed line is said as `user`;
 * `/as <user> <text>` speaks as another member, `/click <label> [user]` clicks a card button,
 * `/help` and `/quit` do what they say, and `commands` add more. Resolves when the person quits
 * or the input ends.
 *
 * Use it for an example's `--interactive` mode: the host supplies the lines (a terminal) and the
 * waiting (`settle`); nothing here reads a terminal, so it runs in tests on a list of lines. A
 * failed action (no such button) is printed, and the session goes on.
 *
 * @throws TestingError `invalid_argument` for a missing `user` or `print`, more than
 * {@link MAX_REPL_COMMANDS} commands, or a command named like a built-in one.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createChatDriver, createFakeChannel, runChatRepl } from '@parley/testing';
 *
 * const channel = createFakeChannel({ channel: 'feishu' });
 * const bus = createMessageBus();
 * await bus.attach(channel);
 * const driver = createChatDriver({ channel, chatId: 'oc_ops' });
 * async function* typed(): AsyncGenerator<string> {
 *   yield '删除 3 号订单';
 *   yield '/as bob 确认';
 *   yield '/count';
 *   yield '/quit';
 * }
 * const commands = { count: () => `${driver.queued} message(s) queued` };
 * await runChatRepl({ lines: typed(), driver, user: 'alice', print: (text) => console.log(text), commands }); // prints "2 message(s) queued"
 * console.log(channel.delivered.map((d) => `${d.input.senderId}: ${d.input.text}`)); // [ 'alice: 删除 3 号订单', 'bob: 确认' ]
 * await bus.close();
 * ```
 */
export async function runChatRepl(options: ChatReplOptions): Promise<void> {
  const { lines, driver, user, print, settle, prompt } = options;
  const commands = options.commands ?? {};
  if (typeof user !== 'string' || user === '')
    throw new TestingError('invalid_argument', 'user must be a name');
  if (typeof print !== 'function') throw new TestingError('invalid_argument', 'print must be a function');
  const names = Object.keys(commands);
  if (names.length > MAX_REPL_COMMANDS) {
    throw new TestingError('invalid_argument', `at most ${MAX_REPL_COMMANDS} commands, got ${names.length}`);
  }
  const clash = names.find((name) => ['as', 'click', 'help', 'quit'].includes(name));
  if (clash !== undefined) throw new TestingError('invalid_argument', `/${clash} is a built-in command`);
  const help = options.help === undefined ? BUILT_IN : `${BUILT_IN}\n${options.help}`;
  prompt?.();
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '/quit') return;
    const [, name = '', rest = ''] = line.match(/^\/(\S+)\s*([\s\S]*)$/) ?? [];
    try {
      if (name === 'help') print(help);
      else if (Object.hasOwn(commands, name)) {
        const text = await (commands[name] as (rest: string) => Promise<string | undefined>)(rest);
        if (text !== undefined) print(text);
      } else if (line !== '') {
        await act(line, name, rest);
        await settle?.();
      }
    } catch (error) {
      print(`(${error instanceof Error ? error.message : String(error)})`);
    }
    prompt?.();
  }

  async function act(line: string, name: string, rest: string): Promise<void> {
    const as = name === 'as' ? rest.match(/^(\S+)\s+([\s\S]+)$/) : null;
    const click = name === 'click' ? rest.match(/^(\S+)(?:\s+(\S+))?$/) : null;
    if (as !== null) await driver.say(as[1] as string, as[2] as string);
    else if (click !== null) await driver.click(click[2] ?? user, startsWith(click[1] as string));
    else if (name === '') await driver.say(user, line);
    else
      print(
        name === 'as' || name === 'click'
          ? `(usage of /${name}: see /help)`
          : `(unknown command /${name}: see /help)`,
      );
  }
}

/** A label that starts with `text`, taken literally. */
function startsWith(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}
