import { ParleyError } from '@parley/core';

/**
 * The codes {@link McpBridgeError} can carry.
 *
 * @example
 * ```ts
 * import { MCP_BRIDGE_ERROR_CODES } from '@parley/mcp';
 *
 * console.log(MCP_BRIDGE_ERROR_CODES.includes('invalid_argument')); // true
 * ```
 */
export const MCP_BRIDGE_ERROR_CODES = ['invalid_argument'] as const;

/**
 * A code of {@link McpBridgeError}: `invalid_argument` for a missing client, server or gate, or a
 * bad option (a progress interval that is not a positive number, an unknown tool in `allow`).
 *
 * @example
 * ```ts
 * import type { McpBridgeErrorCode } from '@parley/mcp';
 *
 * const code: McpBridgeErrorCode = 'invalid_argument';
 * ```
 */
export type McpBridgeErrorCode = (typeof MCP_BRIDGE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/mcp` when it is misused; check it with
 * `isParleyError(err, 'invalid_argument')`. Nothing a server, a client or a model sends throws it.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { McpBridgeError } from '@parley/mcp';
 *
 * const err = new McpBridgeError('invalid_argument', 'client is required');
 * console.log(isParleyError(err, 'invalid_argument')); // true
 * ```
 */
export class McpBridgeError extends ParleyError<McpBridgeErrorCode> {}
