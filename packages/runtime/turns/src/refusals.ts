/**
 * Every code the runner itself refuses a call with (as data, never thrown); a host's `accept` hook
 * adds its own.
 *
 * | code | when |
 * |---|---|
 * | `busy` | another turn (or a rollback) holds the runner and its deadline has not passed |
 * | `in_progress` | the same submission key is running now |
 * | `key_reused` | a submission key already settled or running with other input (identity is content) |
 * | `conflict` | another writer moved the runner's head while this turn ran: nothing was committed |
 * | `invalid_key` | a submission key that is empty or longer than {@link MAX_KEY_LENGTH} characters |
 * | `input_too_large` | an input whose canonical JSON is longer than `maxInputLength` ({@link MAX_INPUT_LENGTH}) |
 *
 * @example
 * ```ts
 * import { TURN_REFUSAL_CODES } from '@parley/turns';
 *
 * console.log(TURN_REFUSAL_CODES.includes('key_reused')); // true
 * ```
 */
export const TURN_REFUSAL_CODES = [
  'busy',
  'in_progress',
  'key_reused',
  'conflict',
  'invalid_key',
  'input_too_large',
] as const;

/**
 * The longest submission key a runner takes (256 characters): a key is a chat message id or the
 * like, and the journal remembers it, so a longer one is refused `invalid_key`.
 *
 * @example
 * ```ts
 * import { MAX_KEY_LENGTH } from '@parley/turns';
 *
 * console.log(MAX_KEY_LENGTH); // 256
 * ```
 */
export const MAX_KEY_LENGTH = 256;

/**
 * The longest input a runner takes by default: 65 536 characters of its canonical JSON. The head
 * and the journal keep each input, so a longer one is refused `input_too_large` before anything runs.
 *
 * @example
 * ```ts
 * import { MAX_INPUT_LENGTH } from '@parley/turns';
 *
 * console.log(MAX_INPUT_LENGTH); // 65536
 * ```
 */
export const MAX_INPUT_LENGTH = 65_536;

/**
 * A code of {@link TURN_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { TurnRefusalCode } from '@parley/turns';
 *
 * const code: TurnRefusalCode = 'busy';
 * ```
 */
export type TurnRefusalCode = (typeof TURN_REFUSAL_CODES)[number];

/**
 * A refused turn: the model was not called and nothing changed.
 *
 * @example
 * ```ts
 * import type { TurnRefusal } from '@parley/turns';
 *
 * const refusal: TurnRefusal<'game_over'> = {
 *   ok: false,
 *   code: 'game_over',
 *   message: 'The game is over',
 *   reason: 'The game is over',
 * };
 * ```
 */
export interface TurnRefusal<THostCode extends string = never> {
  readonly ok: false;
  readonly code: TurnRefusalCode | THostCode;
  /** Why the turn was refused, in words for a person or a log. */
  readonly message: string;
  /** @deprecated Use `message` (the same text); removed in the next minor version. */
  readonly reason: string;
}
