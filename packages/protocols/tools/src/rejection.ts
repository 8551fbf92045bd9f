// The value an executor returns to refuse a call with one of its tool's reasons.
import type { DisableUntil } from './types.js';

const REJECTION = Symbol.for('@parley/tools/rejection');

/**
 * What an executor returns to refuse a call with one of its tool's declared reasons; made by
 * `context.reject(...)`. Nothing is considered executed, and the call is reported as `tool_refused`.
 *
 * @example
 * ```ts
 * import type { ToolRejection } from '@parley/tools';
 *
 * function isPathBlocked(value: ToolRejection<'path_blocked' | 'area_locked'>): boolean {
 *   return value.reason === 'path_blocked';
 * }
 * ```
 */
export interface ToolRejection<TReason extends string = string> {
  readonly [REJECTION]: true;
  readonly reason: TReason;
  readonly message: string | undefined;
  readonly disableUntil: DisableUntil | undefined;
}

/** @internal Makes the value an executor returns to refuse a call. */
export function createRejection<TReason extends string>(
  reason: TReason,
  message: string | undefined,
  disableUntil: DisableUntil | undefined,
): ToolRejection<TReason> {
  return Object.freeze({ [REJECTION]: true as const, reason, message, disableUntil });
}

/** @internal Tells whether an executor returned a rejection. */
export function isToolRejection(value: unknown): value is ToolRejection {
  return (
    typeof value === 'object' && value !== null && (value as { [REJECTION]?: unknown })[REJECTION] === true
  );
}
