import type { Actor } from './actor-types.js';
import type { Flow } from './flow.js';
import type { Machine } from './machine.js';

/**
 * The state names of a machine, actor or flow.
 *
 * @example
 * ```ts
 * import { requestMachine, type StateOf } from '@parley/fsm';
 *
 * const state: StateOf<typeof requestMachine> = 'approved';
 * ```
 */
export type StateOf<T> =
  T extends Machine<infer S, infer _E, infer _C>
    ? S
    : T extends Actor<infer S, infer _E, infer _C>
      ? S
      : T extends Flow<infer S, infer _C>
        ? S | 'done'
        : never;

/**
 * The event names of a machine or actor.
 *
 * @example
 * ```ts
 * import { requestMachine, type EventOf } from '@parley/fsm';
 *
 * const event: EventOf<typeof requestMachine> = 'cancel';
 * ```
 */
export type EventOf<T> =
  T extends Machine<infer _S, infer E, infer _C>
    ? E
    : T extends Actor<infer _S, infer E, infer _C>
      ? E
      : never;

/**
 * The context type of a machine, actor or flow.
 *
 * @example
 * ```ts
 * import { requestMachine, type ContextOf } from '@parley/fsm';
 *
 * const context: ContextOf<typeof requestMachine> = { reason: 'ok' };
 * ```
 */
export type ContextOf<T> =
  T extends Machine<infer _S, infer _E, infer C>
    ? C
    : T extends Actor<infer _S, infer _E, infer C>
      ? C
      : T extends Flow<infer _S, infer C>
        ? C
        : never;
