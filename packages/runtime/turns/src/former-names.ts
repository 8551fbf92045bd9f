// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import type { TurnOpenResult } from './types.js';

/**
 * The former name of {@link TurnOpenResult}: the same type.
 *
 * @deprecated Use `TurnOpenResult`; `OpenResult` was exported by another package for something else.
 * @example
 * ```ts
 * import type { TurnOpenResult, OpenResult } from '@parley/turns';
 *
 * const same = (value: OpenResult): TurnOpenResult => value;
 * ```
 */
export type OpenResult = TurnOpenResult;
