// Runs @parley/testing's Store conformance cases under vitest, one `it` per case.
import type { StoreChange, Unsubscribe } from '@parley/core';
import { type StoreConformanceSubject, storeConformanceCases } from '@parley/testing';
import { describe, it } from 'vitest';
import type { PostgresStore } from '../src/index.js';

export function storeContract(name: string, make: () => Promise<StoreConformanceSubject>): void {
  describe(`${name}: Store contract`, () => {
    for (const group of [undefined, 'compareAndSet', 'watch'] as const) {
      const register = (): void => {
        for (const c of storeConformanceCases().filter((c) => c.group === group)) {
          it(c.name, () => c.run(make));
        }
      };
      if (group === undefined) register();
      else describe(group, register);
    }
  });
}

/** Watches `prefix` on `store` and resolves once the LISTEN is live. */
export function live(
  store: PostgresStore,
  prefix: string,
  listener: (change: StoreChange) => void,
): Promise<Unsubscribe> {
  return new Promise((resolve) => {
    const off = store.watch(prefix, listener, { onResync: () => resolve(off) });
  });
}
