import type { StandardSchemaV1 } from '@parley/core';

/**
 * An event as an object: its `type` plus any data the guards and `assign` read.
 *
 * @example
 * ```ts
 * import type { EventObject } from '@parley/fsm';
 *
 * const event: EventObject<'reject'> = { type: 'reject', reason: 'too risky' };
 * ```
 */
export interface EventObject<TEvent extends string = string> {
  readonly type: TEvent;
  readonly [key: string]: unknown;
}

/**
 * What `send` and `transition` accept: an event name, or an event object carrying data.
 *
 * @example
 * ```ts
 * import type { MachineEvent } from '@parley/fsm';
 *
 * const events: MachineEvent<'approve' | 'reject'>[] = ['approve', { type: 'reject', reason: 'no' }];
 * ```
 */
export type MachineEvent<TEvent extends string = string> = TEvent | EventObject<TEvent>;

/**
 * A guard: a pure predicate over the context and the event that must hold for a transition to be taken.
 *
 * @example
 * ```ts
 * import type { Guard } from '@parley/fsm';
 *
 * const hasBudget: Guard<{ budget: number }> = (context) => context.budget > 0;
 * ```
 */
export type Guard<TContext> = (context: TContext, event: EventObject) => boolean;

/**
 * An update of the context run when a transition is taken: returns the fields that change.
 *
 * @example
 * ```ts
 * import type { Assign } from '@parley/fsm';
 *
 * const count: Assign<{ attempts: number }> = (context) => ({ attempts: context.attempts + 1 });
 * ```
 */
export type Assign<TContext> = (context: TContext, event: EventObject) => Partial<TContext>;

/**
 * A transition in object form: a target (omit it to stay without re-entering), a guard (the name of
 * one of the machine's `guards`, or a function) and an `assign`.
 *
 * @example
 * ```ts
 * import type { TransitionConfig } from '@parley/fsm';
 *
 * const toApproved: TransitionConfig<'approved', { by: string }> = {
 *   target: 'approved',
 *   assign: (_context, event) => ({ by: String(event.by) }),
 * };
 * ```
 */
export interface TransitionConfig<TState extends string, TContext, TGuard extends string = string> {
  readonly target?: TState;
  readonly guard?: TGuard | Guard<TContext>;
  readonly assign?: Assign<TContext>;
  readonly description?: string;
}

/**
 * The value of an `on` entry: a target state name, one transition, or several tried in order (the
 * first whose guard holds is taken).
 *
 * @example
 * ```ts
 * import type { TransitionSpec } from '@parley/fsm';
 *
 * const spec: TransitionSpec<'approved' | 'review', { amount: number }> = [
 *   { target: 'approved', guard: (context) => context.amount < 100 },
 *   { target: 'review' },
 * ];
 * ```
 */
export type TransitionSpec<TState extends string, TContext, TGuard extends string = string> =
  | TState
  | (TransitionConfig<TState, TContext, TGuard> & object)
  | readonly (TransitionConfig<TState, TContext, TGuard> & object)[];

/**
 * One state of a machine: the events it accepts, its timeouts, and whether it is final.
 *
 * @example
 * ```ts
 * import type { StateConfig } from '@parley/fsm';
 *
 * const pending: StateConfig<'pending' | 'expired', {}> = { on: { expire: 'expired' }, after: { 60_000: 'expire' } };
 * ```
 */
export interface StateConfig<
  TState extends string,
  TContext,
  TEvent extends string = string,
  TGuard extends string = string,
> {
  /** Event name → transition. */
  readonly on?: { readonly [E in TEvent]?: TransitionSpec<TState, TContext, TGuard> };
  /** Milliseconds after entering the state → the event sent then (it must be in `on`). */
  readonly after?: Readonly<Record<number, TEvent>>;
  /** A final state accepts no event; reaching it emits `done`. */
  readonly final?: boolean;
  readonly description?: string;
}

/**
 * The static part of a machine definition shared by {@link defineMachine} and the flow builder.
 *
 * @example
 * ```ts
 * import type { MachineOptions } from '@parley/fsm';
 *
 * const options: MachineOptions<{ n: number }> = { id: 'counter', version: 1, context: { n: 0 } };
 * ```
 */
export interface MachineOptions<TContext> {
  /** Stable id written into every snapshot; a snapshot of another machine is refused. */
  readonly id: string;
  /** Positive integer; a snapshot of another version is migrated or refused. */
  readonly version: number;
  /** The context of a new instance; plain JSON. */
  readonly context: TContext;
  /** Checked on restore: a snapshot whose context fails it is refused. */
  readonly contextSchema?: StandardSchemaV1<unknown, TContext>;
  /**
   * Upgrades a snapshot of an older (or newer) version; returns the snapshot for this version.
   * Without it, a snapshot of another version is refused with `version_mismatch`.
   */
  readonly migrate?: (snapshot: MachineSnapshot<string, unknown>) => unknown;
}

/**
 * One taken transition, as kept in the history.
 *
 * @example
 * ```ts
 * import type { HistoryEntry } from '@parley/fsm';
 *
 * const entry: HistoryEntry = { from: 'pending', to: 'approved', event: 'approve', at: 1_700_000_000_000 };
 * ```
 */
export type HistoryEntry = {
  readonly from: string;
  readonly to: string;
  readonly event: string;
  /** Epoch ms from the injected clock. */
  readonly at: number;
};

/**
 * A pending timeout: the absolute time at which `event` is sent.
 *
 * @example
 * ```ts
 * import type { Deadline } from '@parley/fsm';
 *
 * const deadline: Deadline = { at: 1_700_000_060_000, event: 'expire' };
 * ```
 */
export type Deadline = {
  readonly at: number;
  readonly event: string;
};

/**
 * The plain-JSON state of a machine instance: persist it in a `Store`, restore it anywhere. A type
 * alias (not an interface), so it is assignable to core's `JsonValue` when the context is.
 *
 * @example
 * ```ts
 * import type { MachineSnapshot } from '@parley/fsm';
 *
 * const snapshot: MachineSnapshot<'pending' | 'approved', {}> = {
 *   machine: 'request', version: 1, state: 'pending', context: {}, done: false,
 *   createdAt: 0, updatedAt: 0, deadlines: [], history: [],
 * };
 * ```
 */
export type MachineSnapshot<TState extends string = string, TContext = unknown> = {
  readonly machine: string;
  readonly version: number;
  readonly state: TState;
  readonly context: TContext;
  /** Whether `state` is final. */
  readonly done: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Absolute times of the current state's timeouts, earliest first. */
  readonly deadlines: readonly Deadline[];
  /** Taken transitions, oldest first (bounded by the instance's `historyLimit`). */
  readonly history: readonly HistoryEntry[];
};
