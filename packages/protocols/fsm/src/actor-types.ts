import type { Clock, Unsubscribe } from '@parley/core';
import type { Machine } from './machine.js';
import type { Deadline, HistoryEntry, MachineEvent, MachineSnapshot } from './types.js';
import type { FsmRefusal, SendResult } from './results.js';

/**
 * How many history entries a flow session keeps unless told otherwise (`historyLimit` of
 * `createFlowSession` / `createFlowSessionStore`). An actor keeps none unless its `historyLimit`
 * asks for some: each entry costs a clock read per `send` (the transition's exact time), which is
 * several times the cost of the transition itself.
 *
 * @example
 * ```ts
 * import { DEFAULT_HISTORY_LIMIT } from '@parley/fsm';
 *
 * console.log(DEFAULT_HISTORY_LIMIT); // 100
 * ```
 */
export const DEFAULT_HISTORY_LIMIT = 100;

/**
 * Options for {@link createActor}.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { ActorOptions } from '@parley/fsm';
 *
 * const options: ActorOptions<{}> = { clock: createManualClock(), historyLimit: 20 };
 * ```
 */
export interface ActorOptions<TContext> {
  /** Timestamps and timeouts; the system clock by default. */
  readonly clock?: Clock;
  /**
   * A persisted snapshot to resume from; checked like `machine.restore` (all or nothing): a refused
   * snapshot creates no actor and sets no timer.
   */
  readonly snapshot?: unknown;
  /** The context of a new instance instead of the machine's; checked by its `contextSchema`. */
  readonly context?: TContext;
  /**
   * Most transitions kept in the history, oldest dropped first; 0 (none) by default, and
   * {@link DEFAULT_HISTORY_LIMIT} for an actor restored from a snapshot that carries history (so a
   * save and a restore never lose it silently). Each kept entry costs one clock read per `send`; a
   * snapshot restored with fewer slots keeps its newest entries. With no history, no timeouts in the machine and no listener, `send` reads no clock,
   * and `updatedAt` is stamped when the next `snapshot()` is taken after a change.
   */
  readonly historyLimit?: number;
}

/**
 * The events an actor emits, after its state is committed.
 *
 * @example
 * ```ts
 * import type { ActorEvents } from '@parley/fsm';
 *
 * const onDone = (payload: ActorEvents<'approved', 'approve', {}>['done']) => console.log(payload.state);
 * ```
 */
export interface ActorEvents<TState extends string, TEvent extends string, TContext> {
  /** A transition was taken (by `send` or a timeout). */
  transition: { from: TState; to: TState; event: TEvent; at: number; context: TContext };
  /** An event was refused; the state did not change. */
  refused: FsmRefusal<TState, TEvent>;
  /** A final state was reached. */
  done: { state: TState; at: number; context: TContext };
}

/**
 * A running instance of a machine: holds the current snapshot, takes events, fires timeouts on the
 * injected clock and reports typed events.
 *
 * @example
 * ```ts
 * import { createActor, requestMachine, type Actor } from '@parley/fsm';
 *
 * const actor: Actor<'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled', 'approve' | 'reject' | 'expire' | 'cancel', {}> =
 *   createActor(requestMachine);
 * ```
 */
export interface Actor<TState extends string, TEvent extends string, TContext> {
  readonly machine: Machine<TState, TEvent, TContext>;
  readonly state: TState;
  readonly context: TContext;
  /** Whether the current state is final. */
  readonly done: boolean;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** Taken transitions, oldest first, with timestamps from the clock. */
  readonly history: readonly HistoryEntry[];
  /** The current state's pending timeouts, earliest first. */
  readonly deadlines: readonly Deadline[];
  /** Takes `event`, or returns the refusal (never throws for a refused event). */
  send(event: MachineEvent<TEvent>): SendResult<TState, TEvent>;
  /** Whether `event` would be taken now (guards included). */
  can(event: MachineEvent<TEvent>): boolean;
  /** The plain-JSON snapshot to persist. */
  snapshot(): MachineSnapshot<TState, TContext>;
  /** Subscribes to an event; returns a function that unsubscribes. */
  on<K extends keyof ActorEvents<TState, TEvent, TContext> & string>(
    event: K,
    listener: (payload: ActorEvents<TState, TEvent, TContext>[K]) => void,
  ): Unsubscribe;
  /** Clears the timer; later events are refused with `closed`. Calling it twice does nothing. */
  close(): void;
}
