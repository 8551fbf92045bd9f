// An adapter suite's bot: one process of the real SDK, the adapter and a bus (built by the suite's
// harness), with a confirm gate on it over a store and a manual clock that a restart keeps.
import type { MessageBus } from '@parley/bus';
import {
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  createConfirmGate,
} from '@parley/confirm';
import { createSequentialIds } from '@parley/core';
import type { ManualClock, Store } from '@parley/core';
import { nextPrompt } from './confirm-chat.js';

/** The start of the adapter suites' manual clock: 2026-01-01T00:00:00Z. */
export const T0 = 1_767_225_600_000;
/** The secret the adapter suites' gates sign their card buttons with. */
export const SECRET = 'parley-test-secret-0123456789';
/** The action the confirmation suites ask about. */
export const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;

/** A bot process's confirm gate, with the refusals it emitted so far and a wait for its next prompt. */
export interface GateOnBus {
  readonly gate: ConfirmGate;
  readonly refused: ConfirmEvents['refused'][];
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
}

/** One bot process without a gate, as a harness starts it: its bus, and how to stop it. */
export interface BotProcess {
  readonly bus: MessageBus;
  close(): Promise<void>;
}

/**
 * A bot: the fields of its process `P`, its gate, its clock and store; `restart` closes it and
 * starts a `B` with the gate options merged, and `close` closes the gate, then the process.
 */
export type GateBot<P extends BotProcess, B> = Omit<P, 'close'> &
  GateOnBus & {
    readonly clock: ManualClock;
    readonly store: Store;
    /** The same store, stand-in and clock; a new process. */
    restart(more?: Partial<ConfirmGateOptions>): Promise<B>;
    close(): Promise<void>;
  };

/**
 * Puts a gate (`gateOn`, ids `ids`) on `process`; `restart(gate)` starts the next process with the
 * merged gate options once this one is closed.
 */
export async function startGateBot<P extends BotProcess, B>(
  world: { readonly clock: ManualClock; readonly store: Store },
  process: P,
  ids: string,
  options: Partial<ConfirmGateOptions> | undefined,
  restart: (gate: Partial<ConfirmGateOptions>) => Promise<B>,
): Promise<GateBot<P, B>> {
  const on = await gateOn(process.bus, world, ids, options);
  const close = async (): Promise<void> => {
    await on.gate.close();
    await process.close();
  };
  return {
    ...process,
    ...on,
    clock: world.clock,
    store: world.store,
    close,
    async restart(more = {}) {
      await close();
      return restart({ ...options, ...more });
    },
  };
}

/**
 * Restarts `bot` (a new process on the same store, stand-in and clock) with a resume handler for
 * `ACTION`: the restarted bot, and the decisions that handler was given so far.
 */
export async function restartResuming<B extends { restart(more?: Partial<ConfirmGateOptions>): Promise<B> }>(
  bot: B,
): Promise<{ readonly bot: B; readonly resumed: ConfirmDecision[] }> {
  const resumed: ConfirmDecision[] = [];
  const next = await bot.restart({ resume: { [ACTION.name]: (decision) => void resumed.push(decision) } });
  return { bot: next, resumed };
}

/**
 * A ready confirm gate on `bus` as the adapter suites run one: on `clock` and `store`, signing with
 * `SECRET`, its ids `<ids>1`, `<ids>2`, …, with `options` on top.
 */
async function gateOn(
  bus: MessageBus,
  world: { readonly clock: ManualClock; readonly store: Store },
  ids: string,
  options: Partial<ConfirmGateOptions> = {},
): Promise<GateOnBus> {
  const gate = createConfirmGate({
    bus,
    clock: world.clock,
    store: world.store,
    secret: SECRET,
    generateId: createSequentialIds(ids),
    ...options,
  });
  await gate.ready;
  const refused: ConfirmEvents['refused'][] = [];
  gate.on('refused', (event) => refused.push(event));
  return { gate, refused, nextPrompt: () => nextPrompt(gate) };
}
