/**
 * Sizes for the reliability suite. `npm test` runs the fast sizes; `PARLEY_SOAK=full npm test`
 * multiplies property runs and soak sizes by 100.
 */
export const FULL = process.env.PARLEY_SOAK === 'full';

/** Property-based runs: `fast` in `npm test`, 100× with PARLEY_SOAK=full. */
export function runs(fast: number): number {
  return FULL ? fast * 100 : fast;
}

/** A soak size: `fast` in `npm test`, `full` with PARLEY_SOAK=full. */
export function soak(fast: number, full: number): number {
  return FULL ? full : fast;
}
