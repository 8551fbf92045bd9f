// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import { FSM_REFUSAL_CODES, type FsmRefusalCode, type FsmRefusal } from './results.js';

/**
 * The former name of {@link FSM_REFUSAL_CODES}: the same value.
 *
 * @deprecated Use `FSM_REFUSAL_CODES`; `REFUSAL_CODES` was exported by another package for something else.
 * @example
 * ```ts
 * import { FSM_REFUSAL_CODES, REFUSAL_CODES } from '@parley/fsm';
 *
 * console.log(REFUSAL_CODES === FSM_REFUSAL_CODES); // true
 * ```
 */
export const REFUSAL_CODES = FSM_REFUSAL_CODES;

/**
 * The former name of {@link FsmRefusalCode}: the same type.
 *
 * @deprecated Use `FsmRefusalCode`; `RefusalCode` was exported by another package for something else.
 * @example
 * ```ts
 * import type { FsmRefusalCode, RefusalCode } from '@parley/fsm';
 *
 * const same = (value: RefusalCode): FsmRefusalCode => value;
 * ```
 */
export type RefusalCode = FsmRefusalCode;

/**
 * The former name of {@link FsmRefusal}: the same type.
 *
 * @deprecated Use `FsmRefusal`; `Refusal` was exported by another package for something else.
 * @example
 * ```ts
 * import type { FsmRefusal, Refusal } from '@parley/fsm';
 *
 * const same = (value: Refusal): FsmRefusal => value;
 * ```
 */
export type Refusal<TState extends string = string, TEvent extends string = string> = FsmRefusal<
  TState,
  TEvent
>;
