// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import {
  TOOL_FAILURE_STATUSES as CORE_TOOL_FAILURE_STATUSES,
  type ToolFailureStatus as CoreToolFailureStatus,
} from '@parley/core';
import type { ToolGateFeedback } from './types.js';

/**
 * The former name of {@link ToolGateFeedback}: the same type.
 *
 * @deprecated Use `ToolGateFeedback`; `ToolFeedback` was exported by another package for something else.
 * @example
 * ```ts
 * import type { ToolGateFeedback, ToolFeedback } from '@parley/tools';
 *
 * const same = (value: ToolFeedback): ToolGateFeedback => value;
 * ```
 */
export type ToolFeedback = ToolGateFeedback;

/**
 * The statuses of a failed call in `tool_feedback`, now exported by `@parley/core`: the same value.
 *
 * @deprecated Import `TOOL_FAILURE_STATUSES` from `@parley/core`; it has one home there (it was
 * exported by `@parley/tools` and `@parley/conflict` as two copies). Removed in the next minor version.
 * @example
 * ```ts
 * import { TOOL_FAILURE_STATUSES } from '@parley/tools';
 *
 * console.log(TOOL_FAILURE_STATUSES); // [ 'rejected', 'error' ]
 * ```
 */
export const TOOL_FAILURE_STATUSES = CORE_TOOL_FAILURE_STATUSES;

/**
 * One of the statuses of a failed call, now exported by `@parley/core`: the same type.
 *
 * @deprecated Import `ToolFailureStatus` from `@parley/core`. Removed in the next minor version.
 * @example
 * ```ts
 * import type { ToolFailureStatus } from '@parley/tools';
 *
 * const status: ToolFailureStatus = 'rejected';
 * ```
 */
export type ToolFailureStatus = CoreToolFailureStatus;
