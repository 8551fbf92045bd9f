import { ParleyError } from '@parley/core';

/**
 * The codes {@link LedgerError} can carry, and the codes of a refused append.
 *
 * @example
 * ```ts
 * import { LEDGER_ERROR_CODES } from '@parley/ledger';
 *
 * console.log(LEDGER_ERROR_CODES.includes('no_consent')); // true
 * ```
 */
export const LEDGER_ERROR_CODES = [
  'invalid_argument',
  'entry_too_large',
  'chain_full',
  'entry_conflict',
  'no_consent',
  'corrupt_record',
  'record_version',
  'store_failed',
] as const;

/**
 * A code of {@link LedgerError} or of a refused append.
 *
 * @example
 * ```ts
 * import type { LedgerErrorCode } from '@parley/ledger';
 *
 * const code: LedgerErrorCode = 'chain_full';
 * ```
 */
export type LedgerErrorCode = (typeof LEDGER_ERROR_CODES)[number];

/**
 * The error `@parley/ledger` throws or rejects with: misuse of the API (a bad option, a bad key),
 * and an effect refused because its consent could not be recorded.
 *
 * @example
 * ```ts
 * import { LedgerError } from '@parley/ledger';
 * import { isParleyError } from '@parley/core';
 *
 * const err = new LedgerError('no_consent', 'No authorization recorded for c1', { details: { confirmationId: 'c1' } });
 * console.log(isParleyError(err, 'no_consent'), err.details.confirmationId); // true c1
 * ```
 */
export class LedgerError extends ParleyError<LedgerErrorCode> {}
