import { ParleyError } from '@parley/core';

/**
 * The codes of {@link AgentsBridgeError}: `invalid_argument` for a bad option or run id,
 * `run_pending` when a run id already waits for an answer, `corrupt_record` / `record_version` for a
 * stored record that is not one of this bridge's or of another format (refused, never used), and
 * `store_failed` when the store failed.
 *
 * @example
 * ```ts
 * import { AGENTS_BRIDGE_ERROR_CODES } from '@parley/openai-agents';
 *
 * console.log(AGENTS_BRIDGE_ERROR_CODES); // [ 'invalid_argument', 'run_pending', 'corrupt_record', 'record_version', 'store_failed' ]
 * ```
 */
export const AGENTS_BRIDGE_ERROR_CODES = [
  'invalid_argument',
  'run_pending',
  'corrupt_record',
  'record_version',
  'store_failed',
] as const;

/**
 * One of {@link AGENTS_BRIDGE_ERROR_CODES}.
 *
 * @example
 * ```ts
 * import type { AgentsBridgeErrorCode } from '@parley/openai-agents';
 *
 * const code: AgentsBridgeErrorCode = 'run_pending';
 * ```
 */
export type AgentsBridgeErrorCode = (typeof AGENTS_BRIDGE_ERROR_CODES)[number];

/**
 * The error the bridge throws when it is misused (never for anything the model proposed).
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { AgentsBridgeError } from '@parley/openai-agents';
 *
 * console.log(isParleyError(new AgentsBridgeError('run_pending', 'busy'), 'run_pending')); // true
 * ```
 */
export class AgentsBridgeError extends ParleyError<AgentsBridgeErrorCode> {}
