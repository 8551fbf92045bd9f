// Drives a bot like the people in the group chat would (@parley/testing's chat driver: say, click,
// let time pass), plus what this bot adds: a restart, its setting, and the waits a scenario needs.
// Waiting is event-driven (the bot pokes `progress` on a reply, a prompt, a decision), never a sleep.
import { GLOBAL } from '@parley/settings';
import { type ChatDriver, type ChatDriverOptions, createChatDriver, type Progress } from '@parley/testing';
import type { ShopBot } from './wiring.js';

export interface Driver extends Omit<ChatDriver, 'queued'> {
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
  /** Waits until the agent handled every message, or a confirmation awaits an answer (interactive use). */
  idle(): Promise<void>;
}

export interface DriverOptions extends ChatDriverOptions {
  /** The running bot (a new one after `restart`). */
  readonly bot: () => ShopBot;
  /** Replaces the bot. Absent: `restart` throws. */
  readonly restart?: () => Promise<void>;
  readonly progress: Progress;
  readonly log: (line: string) => void;
}

export function createDriver(options: DriverOptions): Driver {
  const { bot, progress, log } = options;
  const chat = createChatDriver(options);
  let before = 0; // messages queued for the bots before the last restart
  let prompts = 0;
  const handledAll = (): boolean => bot().counts.handled >= chat.queued - before;
  return {
    say: chat.say,
    click: chat.click,
    pass: chat.pass,
    async restart() {
      if (options.restart === undefined) throw new Error('restart() needs a host that can restart');
      log('⟲ the bot process stops (nothing in memory survives) and a new one starts on the same store');
      await options.restart();
      before = chat.queued;
      prompts = 0;
    },
    async requireConfirmation(on) {
      log(`(setting safety.require_confirmation = ${on})`);
      await bot().settings.set(GLOBAL, 'safety.require_confirmation', on);
    },
    waitForResumed: () =>
      progress.waitFor(() => bot().counts.resumed >= 1, 'the confirmation from before the restart'),
    waitForPrompt() {
      const target = ++prompts;
      return progress.waitFor(() => bot().counts.prompts >= target, `confirmation prompt #${target}`);
    },
    settle: () =>
      progress.waitFor(
        () => handledAll() && bot().confirm.pending().length === 0,
        'the agent to handle every message with no confirmation pending',
      ),
    idle: () =>
      progress.waitFor(
        () =>
          handledAll() ||
          bot()
            .confirm.pending()
            .some((entry) => entry.state === 'prompted'),
        'the agent to answer or ask for a confirmation',
      ),
  };
}
