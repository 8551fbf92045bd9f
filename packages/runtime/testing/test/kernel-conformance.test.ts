// The kernel conformance suite on the memory store, with seeds from fast-check (fixed in npm test,
// 100 times more under PARLEY_SOAK=full), and against broken stores it must catch.
import { createMemoryStore, type Store } from '@parley/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../../../../tests/reliability/config.js';
import { kernelConformanceCases } from '../src/index.js';
import { delegating } from './helpers.js';

describe('kernelConformanceCases on the memory store', () => {
  for (const check of kernelConformanceCases()) {
    it(check.name, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) =>
          check.run(async () => ({ store: createMemoryStore() }), { seed, steps: 60 }),
        ),
        { seed: 31, numRuns: runs(20) },
      );
    });
  }
});

/** A store whose compare-and-set ignores the expected version: racing writers overwrite each other. */
function withoutCompare(store: Store): Store {
  return {
    ...delegating(store),
    async compareAndSet(key, _version, value, options) {
      await new Promise<void>((resolve) => queueMicrotask(resolve)); // lets a racer read the same version
      if (value === undefined) return { ok: await store.delete(key), version: null } as never;
      return { ok: true, version: await store.set(key, value, options) };
    },
  };
}

describe('kernelConformanceCases against a store without an atomic compare-and-set', () => {
  for (const check of kernelConformanceCases()) {
    it(`fails: ${check.name}`, async () => {
      const failures = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          check
            .run(async () => ({ store: withoutCompare(createMemoryStore()) }), { seed: i + 1, steps: 60 })
            .then(
              () => undefined,
              (err: unknown) => err,
            ),
        ),
      );
      expect(failures.some((err) => err !== undefined)).toBe(true);
    });
  }
});
