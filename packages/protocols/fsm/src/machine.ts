import { compileMachine, type CompiledMachine } from './internal/compiled.js';
import { deadlinesFor, pick, step } from './internal/step.js';
import { restoreSnapshot } from './snapshot.js';
import type { Guard, MachineEvent, MachineOptions, MachineSnapshot, StateConfig } from './types.js';
import type { TransitionResult } from './results.js';

/** @internal The compiled form of a machine, read by the runtime and the drawing. */
export const COMPILED: unique symbol = Symbol.for('@parley/fsm/compiled') as never;

/**
 * The configuration {@link defineMachine} takes.
 *
 * @example
 * ```ts
 * import type { MachineConfig } from '@parley/fsm';
 *
 * const config: MachineConfig<{ idle: { on: { go: 'busy' } }; busy: { final: true } }, {}> = {
 *   id: 'job', version: 1, initial: 'idle', context: {},
 *   states: { idle: { on: { go: 'busy' } }, busy: { final: true } },
 * };
 * ```
 */
export interface MachineConfig<TStates, TContext, TGuard extends string = string>
  extends MachineOptions<TContext> {
  readonly initial: keyof TStates & string;
  /** Named guards; transitions refer to them by name, which is what refusals and drawings show. */
  readonly guards?: { readonly [K in TGuard]: Guard<TContext> };
  readonly states: TStates;
}

/**
 * A typed, immutable machine definition; pure functions over its snapshots.
 *
 * @example
 * ```ts
 * import { requestMachine, type Machine } from '@parley/fsm';
 *
 * const machine: Machine<'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled', 'approve' | 'reject' | 'expire' | 'cancel', {}> =
 *   requestMachine;
 * ```
 */
export interface Machine<TState extends string, TEvent extends string, TContext> {
  readonly id: string;
  readonly version: number;
  readonly initial: TState;
  /** Every state name, in declaration order. */
  readonly states: readonly TState[];
  /** Every event name any state accepts. */
  readonly events: readonly TEvent[];
  readonly finalStates: readonly TState[];
  /** The configuration the machine was defined with. */
  readonly config: MachineConfig<Record<TState, StateConfig<TState, TContext, TEvent>>, TContext>;
  /** The snapshot of a new instance at time `at` (0 by default), with its initial timeouts. */
  initialSnapshot(options?: {
    readonly at?: number;
    readonly context?: TContext;
  }): MachineSnapshot<TState, TContext>;
  /**
   * The next snapshot after `event` at time `at` (the snapshot's `updatedAt` by default), or the
   * refusal. Pure: nothing is mutated and no timer is set. Timeouts due at `at` are applied first.
   */
  transition(
    snapshot: MachineSnapshot<TState, TContext>,
    event: MachineEvent<TEvent>,
    options?: { readonly at?: number; readonly historyLimit?: number },
  ): TransitionResult<TState, TEvent, TContext>;
  /** Whether `event` would be taken from `snapshot` (guards included). */
  can(snapshot: MachineSnapshot<TState, TContext>, event: MachineEvent<TEvent>): boolean;
  /**
   * Checks a persisted snapshot and returns it typed, migrating an older version when the machine
   * has a `migrate` hook. Beyond its shape, the snapshot must be one the machine could have
   * produced: `done` matches the state, the history is a chain of declared transitions ending in
   * the state, and the deadlines are the state's own timeouts as set when it was entered (none
   * pushed further away, none dropped before it fell due, none twice). A migrate hook must return
   * a snapshot that passes these checks for the new version (history included).
   *
   * @throws FsmError `invalid_snapshot`, `wrong_machine`, `version_mismatch`, `migration_failed`,
   * `unknown_state`, `invalid_context`.
   */
  restore(value: unknown): MachineSnapshot<TState, TContext>;
  /** @internal */
  readonly [COMPILED]: CompiledMachine;
}

/** The `on` keys of every state: the events of a machine. */
type EventsIn<TStates> = {
  [K in keyof TStates]: TStates[K] extends { readonly on: infer O } ? keyof O & string : never;
}[keyof TStates];

/** Each state checked against the state names, its own events and the guard names. */
type CheckedStates<TStates, TContext, TGuard extends string> = {
  readonly [K in keyof TStates]: Omit<
    StateConfig<
      keyof TStates & string,
      TContext,
      TStates[K] extends { readonly on: infer O } ? keyof O & string : never,
      TGuard
    >,
    'after'
  > & { readonly after?: Readonly<Record<number, string>> };
};

/** The states whose `after` names an event they do not accept. */
type BadTimeouts<TStates> = {
  [K in keyof TStates]: TStates[K] extends { readonly after: infer A }
    ? A[keyof A] extends (TStates[K] extends { readonly on: infer O } ? keyof O : never)
      ? never
      : K
    : never;
}[keyof TStates];

/** Turns a bad `after` into a compile error naming the rule. */
type CheckedTimeouts<TStates> = [BadTimeouts<TStates>] extends [never]
  ? unknown
  : {
      readonly states: {
        readonly [K in BadTimeouts<TStates>]: {
          readonly after: 'a timeout must send an event its state accepts';
        };
      };
    };

/**
 * Defines a typed finite-state machine: states with `on` maps, guards, `assign`, timeouts (`after`)
 * and final states. State and event names are inferred as literal types, so a target that names no
 * state is a compile error and `send` accepts only declared events.
 *
 * Use it for any protocol whose state must be explicit, persisted and drawn: approvals, handshakes,
 * sessions. The result is a pure module constant; run it with {@link createActor}.
 *
 * @throws FsmError `invalid_definition` when the initial state, a target, a guard name or a
 * timeout's event does not exist, a final state has transitions, or a timeout is not a valid delay.
 * @example
 * ```ts
 * import { defineMachine, createActor } from '@parley/fsm';
 *
 * const door = defineMachine({
 *   id: 'door',
 *   version: 1,
 *   initial: 'closed',
 *   context: { opened: 0 },
 *   guards: { unlocked: (context: { opened: number }) => context.opened < 3 },
 *   states: {
 *     closed: { on: { open: { target: 'open', guard: 'unlocked', assign: (c) => ({ opened: c.opened + 1 }) } } },
 *     open: { on: { close: 'closed', break: 'broken' } },
 *     broken: { final: true },
 *   },
 * });
 * const actor = createActor(door);
 * actor.send('open');
 * console.log(actor.state, actor.context.opened); // open 1
 * ```
 */
export function defineMachine<
  const TStates extends Record<string, StateConfig<string, TContext>>,
  TContext extends object,
  TGuard extends string = never,
>(
  config: MachineConfig<TStates, TContext, TGuard> & {
    readonly states: CheckedStates<TStates, TContext, TGuard>;
  } & CheckedTimeouts<TStates>,
): Machine<keyof TStates & string, EventsIn<TStates>, TContext> {
  const compiled = compileMachine(config as never); // checked by the types above and at run time in compileMachine
  return buildMachine(compiled, config as never);
}

/** @internal Wraps a compiled machine in the public pure API (shared with flows). */
export function buildMachine<TState extends string, TEvent extends string, TContext>(
  compiled: CompiledMachine,
  config: Machine<TState, TEvent, TContext>['config'],
): Machine<TState, TEvent, TContext> {
  const machine: Machine<TState, TEvent, TContext> = {
    id: compiled.id,
    version: compiled.version,
    initial: compiled.names[0] as TState,
    states: compiled.names as TState[],
    events: compiled.events as TEvent[],
    finalStates: compiled.names.filter((_, i) => compiled.final[i]) as TState[],
    config,
    initialSnapshot(options = {}) {
      const at = options.at ?? 0;
      return {
        machine: compiled.id,
        version: compiled.version,
        state: compiled.names[compiled.initial] as TState,
        context: (options.context ?? compiled.context) as TContext,
        done: compiled.final[compiled.initial] === true,
        createdAt: at,
        updatedAt: at,
        deadlines: deadlinesFor(compiled, compiled.initial, at),
        history: [],
      };
    },
    transition(snapshot, event, options = {}) {
      const at = options.at ?? snapshot.updatedAt;
      const limit = options.historyLimit ?? Number.POSITIVE_INFINITY;
      let current: MachineSnapshot<string, unknown> = snapshot;
      for (let due = current.deadlines[0]; due !== undefined && due.at <= at; due = current.deadlines[0]) {
        const fired = step(compiled, current, due.event, due.at, limit);
        const rest = current.deadlines.slice(1);
        // A timeout fires once: refused by a guard or taken without leaving the state, it is spent.
        if (!fired.ok) current = { ...current, deadlines: rest };
        else
          current =
            fired.snapshot.deadlines === current.deadlines
              ? { ...fired.snapshot, deadlines: rest }
              : fired.snapshot;
      }
      const result = step(compiled, current, event, at, limit);
      return result as TransitionResult<TState, TEvent, TContext>;
    },
    can(snapshot, event) {
      const index = compiled.index.get(snapshot.state);
      if (index === undefined) return false;
      try {
        return pick(compiled, index, event, snapshot.context).transition !== undefined;
      } catch {
        return false; // a guard that throws does not hold
      }
    },
    restore(value) {
      return restoreSnapshot(compiled, value) as MachineSnapshot<TState, TContext>;
    },
    [COMPILED]: compiled,
  };
  return Object.freeze(machine);
}
