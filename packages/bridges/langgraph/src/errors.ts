import { ParleyError } from '@parley/core';

/**
 * The codes {@link LangGraphBridgeError} can carry.
 *
 * @example
 * ```ts
 * import { LANGGRAPH_BRIDGE_ERROR_CODES } from '@parley/langgraph';
 *
 * console.log(LANGGRAPH_BRIDGE_ERROR_CODES); // [ 'invalid_argument', 'too_many_rounds', 'corrupt_record', 'record_version', 'store_failed' ]
 * ```
 */
export const LANGGRAPH_BRIDGE_ERROR_CODES = [
  'invalid_argument',
  'too_many_rounds',
  'corrupt_record',
  'record_version',
  'store_failed',
] as const;

/**
 * A code of {@link LangGraphBridgeError}: `invalid_argument` for a missing graph, gate, thread id,
 * session or bad option; `too_many_rounds` when a run raised confirmation interrupts more than
 * `maxRounds` times in a row (the thread stays interrupted; nothing ran unconfirmed);
 * `corrupt_record` / `record_version` for a stored answer that is not one or of another format
 * (refused, never used); `store_failed` when the store failed.
 *
 * @example
 * ```ts
 * import type { LangGraphBridgeErrorCode } from '@parley/langgraph';
 *
 * const code: LangGraphBridgeErrorCode = 'too_many_rounds';
 * ```
 */
export type LangGraphBridgeErrorCode = (typeof LANGGRAPH_BRIDGE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/langgraph` when it is misused; check it with
 * `isParleyError(err, 'invalid_argument')`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { LangGraphBridgeError } from '@parley/langgraph';
 *
 * const err = new LangGraphBridgeError('invalid_argument', 'a thread_id is required');
 * console.log(isParleyError(err, 'invalid_argument')); // true
 * ```
 */
export class LangGraphBridgeError extends ParleyError<LangGraphBridgeErrorCode> {}
