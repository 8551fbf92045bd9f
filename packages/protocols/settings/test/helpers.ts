import { createFakeStore, type FakeStore } from '@parley/testing';
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import { z } from 'zod';
import { createSettings, defineSetting, defineSettings } from '../src/index.js';

/** A small registry with every shape the tests need: booleans in both relation kinds, a global key, a number. */
export const registry = defineSettings(
  [
    defineSetting({ key: 'mode.a', schema: z.boolean(), default: false }),
    defineSetting({ key: 'mode.b', schema: z.boolean(), default: false }),
    defineSetting({ key: 'mode.c', schema: z.boolean(), default: false }),
    defineSetting({ key: 'boost.on', schema: z.boolean(), default: false }),
    defineSetting({ key: 'boost.extra', schema: z.boolean(), default: true }),
    defineSetting({
      key: 'limits.max',
      schema: z.number().int().min(0).max(10),
      default: 3,
      scope: 'global',
    }),
    defineSetting({ key: 'ui.tags', schema: z.array(z.string()), default: ['x'] }),
  ],
  {
    relations: [
      { kind: 'exclusive', keys: ['mode.a', 'mode.b', 'mode.c'] },
      { kind: 'precedence', winner: 'boost.on', over: 'boost.extra' },
    ],
  },
);

export interface Setup {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly settings: ReturnType<typeof createSettings<typeof registry>>;
}

export function setup(store?: Store): Setup {
  const clock = createManualClock({ now: 1_000 });
  const backing = store ?? createMemoryStore({ clock });
  return { clock, store: backing, settings: createSettings(registry, { store: backing, clock }) };
}

/**
 * A store over `inner` on which, just before the next `times` compare-and-sets, `interfere` runs
 * (another writer committing in between the read and the write); it records every compare-and-set
 * result. Built on `@parley/testing`'s FakeStore, without `watch` like the wrapper it replaces.
 */
export function racingStore(inner: Store, interfere: (store: Store) => Promise<void>, times = 1): FakeStore {
  const store = createFakeStore({ inner, watch: false });
  if (times > 0) store.before('compareAndSet', interfere, times);
  return store;
}
