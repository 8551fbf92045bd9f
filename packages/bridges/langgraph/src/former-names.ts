// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import { DEFAULT_MAX_CONFIRMATION_ROUNDS } from './drive.js';

/**
 * The former name of {@link DEFAULT_MAX_CONFIRMATION_ROUNDS}: the same value.
 *
 * @deprecated Use `DEFAULT_MAX_CONFIRMATION_ROUNDS`; `DEFAULT_MAX_ROUNDS` was exported by another package for something else.
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONFIRMATION_ROUNDS, DEFAULT_MAX_ROUNDS } from '@parley/langgraph';
 *
 * console.log(DEFAULT_MAX_ROUNDS === DEFAULT_MAX_CONFIRMATION_ROUNDS); // true
 * ```
 */
export const DEFAULT_MAX_ROUNDS = DEFAULT_MAX_CONFIRMATION_ROUNDS;
