// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import type { LedgerRunResult } from './confirm.js';

/**
 * The former name of {@link LedgerRunResult}: the same type.
 *
 * @deprecated Use `LedgerRunResult`; `RunResult` was exported by another package for something else.
 * @example
 * ```ts
 * import type { LedgerRunResult, RunResult } from '@parley/ledger';
 *
 * const same = (value: RunResult): LedgerRunResult => value;
 * ```
 */
export type RunResult<T> = LedgerRunResult<T>;
