import { ParleyError } from '@parley/core';

/**
 * The codes {@link ToolsError} can carry.
 *
 * @example
 * ```ts
 * import { TOOLS_ERROR_CODES } from '@parley/tools';
 *
 * console.log(TOOLS_ERROR_CODES.includes('not_in_allowlist')); // true
 * ```
 */
export const TOOLS_ERROR_CODES = [
  'invalid_tool',
  'missing_args_schema',
  'missing_reasons',
  'duplicate_tool',
  'not_in_allowlist',
  'unknown_allowlist_entry',
  'confirm_unavailable',
  'schema_not_convertible',
  'strict_incompatible',
  'invalid_argument',
  'invalid_snapshot',
  'not_recorded',
] as const;

/**
 * A code of {@link ToolsError}.
 *
 * @example
 * ```ts
 * import type { ToolsErrorCode } from '@parley/tools';
 *
 * const code: ToolsErrorCode = 'missing_reasons';
 * ```
 */
export type ToolsErrorCode = (typeof TOOLS_ERROR_CODES)[number];

/**
 * The error `@parley/tools` throws when it is misused: a tool definition or registry that breaks
 * the extension rules (args schema, reason enumeration, allowlist), a schema that cannot be
 * exported, a bad option. What the model proposes is never an error: it becomes `tool_feedback`.
 *
 * @example
 * ```ts
 * import { defineTool } from '@parley/tools';
 * import { isParleyError } from '@parley/core';
 * import { z } from 'zod';
 *
 * try {
 *   defineTool({ name: 'bad name!', description: 'x', args: z.object({}), reasons: [], execute: () => null });
 * } catch (err) {
 *   console.log(isParleyError(err, 'invalid_tool')); // true
 * }
 * ```
 */
export class ToolsError extends ParleyError<ToolsErrorCode> {}
