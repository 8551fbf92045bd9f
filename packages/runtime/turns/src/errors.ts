import { ParleyError } from '@parley/core';

/**
 * The codes {@link TurnsError} can carry.
 *
 * | code | when |
 * |---|---|
 * | `invalid_argument` | an empty `keyPrefix`, a `turnTimeoutMs`, `journalTtlMs` or `maxInputLength` that is not a positive integer |
 * | `not_opened` | `run`, `rollback` or `undo` before `open()` resolved |
 * | `turn_failed` | a hook, the model wrapper, the gate or a store write threw during a turn: nothing was committed, the host state is back at the last commit (`cause` holds the error) |
 * | `corrupt_record` | the stored head of the runner is not what this package wrote (a format-1 head from before the kernel included) |
 * | `record_version` | the stored head has another record format version than this code reads |
 * | `store_failed` | the store failed while the head's lease was taken |
 * | `conflict` | a rollback or undo moved the checkpoint log but another writer moved the head meanwhile |
 *
 * @example
 * ```ts
 * import { TURNS_ERROR_CODES } from '@parley/turns';
 *
 * console.log(TURNS_ERROR_CODES.includes('turn_failed')); // true
 * ```
 */
export const TURNS_ERROR_CODES = [
  'invalid_argument',
  'not_opened',
  'turn_failed',
  'corrupt_record',
  'record_version',
  'conflict',
  'store_failed',
] as const;

/**
 * A code of {@link TurnsError}.
 *
 * @example
 * ```ts
 * import type { TurnsErrorCode } from '@parley/turns';
 *
 * const code: TurnsErrorCode = 'not_opened';
 * ```
 */
export type TurnsErrorCode = (typeof TURNS_ERROR_CODES)[number];

/**
 * The error `@parley/turns` throws when it is misused or a turn could not finish. Refusals (a busy
 * runner, a reused submission key, a lost race) come back as data instead.
 *
 * @example
 * ```ts
 * import { createMemoryStore, isParleyError } from '@parley/core';
 * import { createToolGate } from '@parley/tools';
 * import { createTurnRunner } from '@parley/turns';
 *
 * try {
 *   createTurnRunner({
 *     store: createMemoryStore(),
 *     keyPrefix: '',
 *     gate: createToolGate({ tools: [], allowlist: [] }),
 *     capture: () => null,
 *     restore: () => {},
 *     prepare: () => ({ request: '', generate: () => ({ text: '' }), readState: () => null, context: undefined, data: undefined }),
 *     complete: () => null,
 *   });
 * } catch (err) {
 *   console.log(isParleyError(err, 'invalid_argument')); // true
 * }
 * ```
 */
export class TurnsError extends ParleyError<TurnsErrorCode> {}

/**
 * How long a started turn holds the runner by default (5 minutes): a turn still open after it is
 * taken as abandoned by a process that died, and the next `run` or `open` settles it.
 *
 * @example
 * ```ts
 * import { DEFAULT_TURN_TIMEOUT_MS } from '@parley/turns';
 *
 * console.log(DEFAULT_TURN_TIMEOUT_MS); // 300000
 * ```
 */
export const DEFAULT_TURN_TIMEOUT_MS = 5 * 60_000;

/**
 * How long a settled submission key is remembered by default (7 days): a submission repeated
 * within it is answered from the journal and never runs again.
 *
 * @example
 * ```ts
 * import { DEFAULT_JOURNAL_TTL_MS } from '@parley/turns';
 *
 * console.log(DEFAULT_JOURNAL_TTL_MS); // 604800000
 * ```
 */
export const DEFAULT_JOURNAL_TTL_MS = 7 * 24 * 60 * 60_000;

/** Checks a duration option: a positive integer. @internal */
export function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new TurnsError('invalid_argument', `${name} must be a positive integer, got ${String(value)}`, {
      details: { [name]: String(value) },
    });
  }
  return value;
}
