import type { PublishResult } from '@parley/bus';
import type { ManualClock } from '@parley/core';
import type { ButtonLabel, FakeChannel } from './channel-types.js';
import { TestingError } from './errors.js';
import type { Progress } from './progress.js';

/**
 * Options of {@link createChatDriver}.
 *
 * @example
 * ```ts
 * import { createFakeChannel, createFakeClock, type ChatDriverOptions } from '@parley/testing';
 *
 * const clock = createFakeClock();
 * const options: ChatDriverOptions = { channel: createFakeChannel({ clock }), chatId: 'ops', clock, stepMs: 500 };
 * ```
 */
export interface ChatDriverOptions {
  /** The group chat the people talk in. */
  readonly channel: FakeChannel;
  /** The chat `say` and `click` use unless they name another. */
  readonly chatId: string;
  /** Poked after each action, so pending waits re-check (see {@link createProgress}). */
  readonly progress?: Progress;
  /** Receives a line per action (`alice: 确认`, `bob clicks [确认]`), e.g. a transcript's `log`. */
  readonly log?: (line: string) => void;
  /** Simulated time: each action happens `stepMs` after the previous one. Absent: real time. */
  readonly clock?: ManualClock;
  /** 1 000 ms by default. */
  readonly stepMs?: number;
}

/**
 * People in a fake group chat, as a script or a test drives them: they say things, click buttons,
 * let time pass; the driver counts what the bus queued for the bot.
 *
 * @example
 * ```ts
 * import { createChatDriver, createFakeChannel, type ChatDriver } from '@parley/testing';
 *
 * const driver: ChatDriver = createChatDriver({ channel: createFakeChannel(), chatId: 'ops' });
 * console.log(driver.queued); // 0
 * ```
 */
export interface ChatDriver {
  /** A member writes in the chat (the driver's chat unless another is named). */
  say(user: string, text: string, chatId?: string): Promise<PublishResult>;
  /** A member clicks the button with this label on the latest card of the chat that has one. */
  click(user: string, label: ButtonLabel, chatId?: string): Promise<PublishResult>;
  /** Lets simulated time pass, with a line saying why; needs the `clock` option. */
  pass(ms: number, what: string): void;
  /**
   * Messages the bus queued for the bot (`status: 'queued'`) so far: what the bot should have
   * handled once it is idle. Replies an interceptor consumed or dropped are not counted.
   */
  readonly queued: number;
}

/**
 * Creates a {@link ChatDriver} over a {@link FakeChannel} attached to a bus: `say` and `click`
 * publish as the platform would, write a line to `log`, step the manual clock and poke `progress`.
 *
 * Use it with {@link createProgress} to script a scenario without sleeping: act, then wait for a
 * condition on the bot (`bot.handled >= driver.queued`).
 *
 * @throws TestingError `invalid_argument` for a `stepMs` that is not a non-negative integer;
 * `pass` throws `clock_required` without a clock, `invalid_argument` for a negative time; `click`
 * rejects with `no_button` when the chat has no such button (from the channel).
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createChatDriver, createFakeChannel, createFakeClock } from '@parley/testing';
 *
 * const clock = createFakeClock({ now: Date.UTC(2026, 0, 5, 9) });
 * const channel = createFakeChannel({ channel: 'feishu', clock });
 * const bus = createMessageBus({ clock });
 * await bus.attach(channel);
 * const lines: string[] = [];
 * const driver = createChatDriver({ channel, chatId: 'oc_ops', clock, log: (line) => lines.push(line) });
 * await driver.say('alice', '删除 3 号订单');
 * await driver.say('carol', 'hello', 'oc_finance');
 * console.log(driver.queued, lines); // 2 [ 'alice: 删除 3 号订单', 'carol (in oc_finance): hello' ]
 * console.log(new Date(clock.now()).toISOString()); // 2026-01-05T09:00:02.000Z
 * await bus.close();
 * ```
 */
export function createChatDriver(options: ChatDriverOptions): ChatDriver {
  const { channel, chatId, progress, log, clock } = options;
  const stepMs = options.stepMs ?? 1_000;
  if (!Number.isInteger(stepMs) || stepMs < 0) {
    throw new TestingError('invalid_argument', `stepMs must be an integer ≥ 0, got ${String(stepMs)}`);
  }
  let queued = 0;
  const act = async (line: string, publish: () => Promise<PublishResult>): Promise<PublishResult> => {
    clock?.advance(stepMs);
    log?.(line);
    const result = await publish();
    if (result.status === 'queued') queued++;
    progress?.poke();
    return result;
  };
  return {
    say(user, text, chat = chatId) {
      return act(`${user}${chat === chatId ? '' : ` (in ${chat})`}: ${text}`, () =>
        channel.say(chat, user, text),
      );
    },
    click(user, label, chat = chatId) {
      const button = channel
        .buttons(chat)
        .find((b) => (typeof label === 'string' ? b.label === label : label.test(b.label)));
      const where = chat === chatId ? '' : ` (in ${chat})`;
      return act(`${user}${where} clicks [${button?.label ?? String(label)}]`, () =>
        channel.clickButton(chat, user, label),
      );
    },
    pass(ms, what) {
      if (clock === undefined) throw new TestingError('clock_required', 'pass() needs the clock option');
      if (!Number.isFinite(ms) || ms < 0) {
        throw new TestingError('invalid_argument', `ms must be a finite number ≥ 0, got ${String(ms)}`);
      }
      log?.(`(${what})`);
      clock.advance(ms);
      progress?.poke();
    },
    get queued() {
      return queued;
    },
  };
}
