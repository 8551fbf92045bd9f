// Drives a bot like the people in the group chat would: say something, click a button, wait for
// the prompt, let time pass. Waiting is event-driven (a reply sent, a prompt sent, a decision
// made), never a sleep; a real-time watchdog only turns a bug into an error instead of a hang.
import type { ManualClock } from '@parley/core';
import { GLOBAL } from '@parley/settings';
import type { FakeChannel } from '@parley/testing';
import type { ShopBot } from './wiring.js';

/** Re-checks waiting conditions whenever the bot reports progress. */
export interface Progress {
  poke(): void;
  waitFor(condition: () => boolean, what: string): Promise<void>;
}

export function createProgress(stallMs = 60_000): Progress {
  const waiters = new Set<{ condition: () => boolean; resolve: () => void }>();
  return {
    poke() {
      for (const waiter of [...waiters]) {
        if (!waiter.condition()) continue;
        waiters.delete(waiter);
        waiter.resolve();
      }
    },
    waitFor(condition, what) {
      if (condition()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const watchdog = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`Stalled: still waiting for ${what}`));
        }, stallMs);
        watchdog.unref?.();
        const waiter = {
          condition,
          resolve: () => {
            clearTimeout(watchdog);
            resolve();
          },
        };
        waiters.add(waiter);
      });
    },
  };
}

export interface Driver {
  /** A group member writes in the chat (the scenario's chat unless another is named). */
  say(user: string, text: string, chatId?: string): Promise<void>;
  /** A group member clicks the button with this label on the latest card. */
  click(user: string, label: RegExp): Promise<void>;
  /** Stops the bot as a crash would and starts a new one on the same store and database. */
  restart(): Promise<void>;
  /** Sets `safety.require_confirmation` for every chat. */
  requireConfirmation(on: boolean): Promise<void>;
  /** Waits until a confirmation asked before the restart was answered and handled. */
  waitForResumed(): Promise<void>;
  /** Waits for the next confirmation prompt (counted from the start of the scenario). */
  waitForPrompt(): Promise<void>;
  /** Waits until the agent handled every message it was given and nothing awaits confirmation. */
  settle(): Promise<void>;
  /**
   * Waits until the agent handled every message it was given, or a confirmation awaits an answer
   * (interactive use: the person has to answer it).
   */
  idle(): Promise<void>;
  /** Lets simulated time pass (scripted runs only). */
  pass(ms: number, what: string): void;
}

export interface DriverOptions {
  /** The running bot (a new one after `restart`). */
  readonly bot: () => ShopBot;
  /** Replaces the bot; the driver's counts start again. Absent: `restart` throws. */
  readonly restart?: () => Promise<void>;
  readonly channel: FakeChannel;
  readonly chatId: string;
  readonly progress: Progress;
  readonly log: (line: string) => void;
  /** Manual clock: each action happens `stepMs` after the previous one. Absent: real time. */
  readonly clock?: ManualClock;
  readonly stepMs?: number;
}

export function createDriver(options: DriverOptions): Driver {
  const { bot, channel, chatId, progress, log, clock } = options;
  const stepMs = options.stepMs ?? 1_000;
  let forwarded = 0; // messages the bus queued for the agent
  let expectedPrompts = 0;

  function step(): void {
    clock?.advance(stepMs);
  }

  function count(status: string): void {
    if (status === 'queued') forwarded++;
    progress.poke();
  }

  return {
    async say(user, text, chat = chatId) {
      step();
      log(`${user}${chat === chatId ? '' : ` (in ${chat})`}: ${text}`);
      count((await channel.say(chat, user, text)).status);
    },
    async click(user, label) {
      step();
      const button = channel.buttons(chatId).find((b) => label.test(b.label));
      log(`${user} clicks [${button?.label ?? String(label)}]`);
      count((await channel.clickButton(chatId, user, label)).status);
    },
    async restart() {
      if (options.restart === undefined) throw new Error('restart() needs a host that can restart');
      log('⟲ the bot process stops (nothing in memory survives) and a new one starts on the same store');
      await options.restart();
      forwarded = 0;
      expectedPrompts = 0;
    },
    async requireConfirmation(on) {
      log(`(setting safety.require_confirmation = ${on})`);
      await bot().settings.set(GLOBAL, 'safety.require_confirmation', on);
    },
    waitForResumed() {
      return progress.waitFor(() => bot().resumed >= 1, 'the confirmation from before the restart');
    },
    waitForPrompt() {
      expectedPrompts++;
      const target = expectedPrompts;
      return progress.waitFor(() => bot().prompts >= target, `confirmation prompt #${target}`);
    },
    settle() {
      return progress.waitFor(
        () => bot().agent.handled >= forwarded && bot().confirm.pending().length === 0,
        `the agent to handle ${forwarded} message(s) with no confirmation pending`,
      );
    },
    idle() {
      return progress.waitFor(
        () =>
          bot().agent.handled >= forwarded ||
          bot()
            .confirm.pending()
            .some((entry) => entry.state === 'prompted'),
        'the agent to answer or ask for a confirmation',
      );
    },
    pass(ms, what) {
      if (clock === undefined) throw new Error('pass() needs the manual clock of a scripted run');
      log(`(${what})`);
      clock.advance(ms);
    },
  };
}
