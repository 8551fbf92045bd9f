import { CAS_CASES } from './store-cases-cas.js';
import { VALUE_CASES } from './store-cases-values.js';
import type { StoreConformanceCase } from './store-conformance-types.js';

export type { StoreConformanceCase, StoreConformanceSubject } from './store-conformance-types.js';

/**
 * Lists the checks every `Store` must pass, the ones the memory, Redis and Postgres stores run:
 * JSON round trips and copies, versions, TTL and its refusals, atomic compare-and-set, prefix
 * listing, keys that UTF-8 cannot hold (lone surrogates, NUL) kept distinct, `close`, and `watch`.
 *
 * Use it to test a store of your own with any runner: each case is a name and an async function
 * that throws on failure, so a loop of `it(c.name, () => c.run(make))` runs them all.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { storeConformanceCases } from '@parley/testing';
 *
 * const passed: string[] = [];
 * for (const check of storeConformanceCases()) {
 *   await check.run(async () => ({ store: createMemoryStore() })); // throws on a broken contract
 *   passed.push(check.name);
 * }
 * console.log(passed.length === storeConformanceCases().length); // true
 * ```
 */
export function storeConformanceCases(): readonly StoreConformanceCase[] {
  return CASES;
}

const CASES: readonly StoreConformanceCase[] = [...VALUE_CASES, ...CAS_CASES];
