import type { MachineSnapshot } from './types.js';

/**
 * The codes an event can be refused with: `unknown_event`, `event_not_accepted` (not in this
 * state), `guard_failed`, `machine_done` (a final state), `closed`.
 *
 * Use it to handle every refusal of `send` exhaustively, or to list them in a host's own docs.
 *
 * @example
 * ```ts
 * import { createActor, FSM_REFUSAL_CODES, requestMachine } from '@parley/fsm';
 *
 * const actor = createActor(requestMachine);
 * actor.send('approve');
 * const result = actor.send('reject'); // the request is already approved
 * console.log(result.ok === false && FSM_REFUSAL_CODES.includes(result.code)); // true
 * ```
 */
export const FSM_REFUSAL_CODES = [
  'unknown_event',
  'event_not_accepted',
  'guard_failed',
  'machine_done',
  'closed',
  'callback_failed',
] as const;

/**
 * Why an event was refused.
 *
 * @example
 * ```ts
 * import type { FsmRefusalCode } from '@parley/fsm';
 *
 * const code: FsmRefusalCode = 'guard_failed';
 * ```
 */
export type FsmRefusalCode = (typeof FSM_REFUSAL_CODES)[number];

/**
 * An event refused: returned as data, never thrown. The state did not change.
 *
 * @example
 * ```ts
 * import type { FsmRefusal } from '@parley/fsm';
 *
 * const refusal: FsmRefusal = {
 *   ok: false, code: 'event_not_accepted', state: 'approved', event: 'reject',
 *   message: 'State "approved" does not accept "reject"',
 *   reason: 'State "approved" does not accept "reject"',
 * };
 * ```
 */
export interface FsmRefusal<TState extends string = string, TEvent extends string = string> {
  readonly ok: false;
  readonly code: FsmRefusalCode;
  readonly state: TState;
  readonly event: TEvent | string;
  /** Why the event was refused, in words for a person or a log. */
  readonly message: string;
  /** @deprecated Use `message` (the same text); removed in the next minor version. */
  readonly reason: string;
  /** For `guard_failed`: the name of the guard that did not hold (the last one tried). */
  readonly guard?: string;
  /** For `callback_failed`: what the guard or `assign` threw. */
  readonly cause?: unknown;
}

/**
 * A transition taken by an instance.
 *
 * @example
 * ```ts
 * import type { Transitioned } from '@parley/fsm';
 *
 * const taken: Transitioned<'pending' | 'approved', 'approve'> = { ok: true, from: 'pending', to: 'approved', event: 'approve' };
 * ```
 */
export interface Transitioned<TState extends string = string, TEvent extends string = string> {
  readonly ok: true;
  readonly from: TState;
  readonly to: TState;
  readonly event: TEvent;
}

/**
 * What `send` returns: the transition taken, or the refusal.
 *
 * @example
 * ```ts
 * import type { SendResult } from '@parley/fsm';
 *
 * function describe(result: SendResult): string {
 *   return result.ok ? `now ${result.to}` : `refused: ${result.code}`;
 * }
 * ```
 */
export type SendResult<TState extends string = string, TEvent extends string = string> =
  | Transitioned<TState, TEvent>
  | FsmRefusal<TState, TEvent>;

/**
 * What the pure {@link Machine.transition} returns: the next snapshot, or the refusal.
 *
 * @example
 * ```ts
 * import type { TransitionResult } from '@parley/fsm';
 *
 * function next(result: TransitionResult): string {
 *   return result.ok ? result.snapshot.state : result.message;
 * }
 * ```
 */
export type TransitionResult<
  TState extends string = string,
  TEvent extends string = string,
  TContext = unknown,
> =
  | (Transitioned<TState, TEvent> & { readonly snapshot: MachineSnapshot<TState, TContext> })
  | FsmRefusal<TState, TEvent>;
