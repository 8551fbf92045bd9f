/**
 * The statuses a failed tool call has in `tool_feedback.failed_calls`: `rejected` (judged and
 * refused, nothing ran) or `error` (allowed, but host code failed: a policy, the confirmation or the
 * executor). The tool gate writes them and the conflict loop reads them, so they live here once.
 *
 * @example
 * ```ts
 * import { TOOL_FAILURE_STATUSES } from '@parley/core';
 *
 * console.log(TOOL_FAILURE_STATUSES); // [ 'rejected', 'error' ]
 * ```
 */
export const TOOL_FAILURE_STATUSES = ['rejected', 'error'] as const;

/**
 * One of {@link TOOL_FAILURE_STATUSES}.
 *
 * @example
 * ```ts
 * import type { ToolFailureStatus } from '@parley/core';
 *
 * const status: ToolFailureStatus = 'rejected';
 * ```
 */
export type ToolFailureStatus = (typeof TOOL_FAILURE_STATUSES)[number];
