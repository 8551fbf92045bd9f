import { ParleyError } from '@parley/core';

/**
 * The codes of {@link AgentsBridgeError}: `invalid_argument` for a bad option or run id,
 * `run_pending` when a run id already waits for an answer.
 *
 * @example
 * ```ts
 * import { AGENTS_BRIDGE_ERROR_CODES } from '@parley/openai-agents';
 *
 * console.log(AGENTS_BRIDGE_ERROR_CODES); // [ 'invalid_argument', 'run_pending' ]
 * ```
 */
export const AGENTS_BRIDGE_ERROR_CODES = ['invalid_argument', 'run_pending'] as const;

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
