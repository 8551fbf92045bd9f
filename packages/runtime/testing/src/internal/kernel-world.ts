// The world of the kernel conformance walks: three kernels over one store that crashes on demand,
// a clock moved by hand, a seeded random source, and rounds of racing operations.
import { type Clock, createKernel, type Kernel, type RecordCodec, type Store } from '@parley/core';
import { TestingError } from '../errors.js';
import type { KernelConformanceSubject } from '../kernel-conformance-types.js';

/** A counter whose value lists the ids of the commits it holds. */
export const LEDGER: RecordCodec<readonly string[]> = {
  kind: 'parley.conformance.ledger',
  version: 1,
  decode: (data) =>
    Array.isArray(data) && data.every((x) => typeof x === 'string') ? (data as string[]) : undefined,
  encode: (value) => [...value],
};

export interface World {
  readonly rand: (n: number) => number;
  readonly clock: Clock & { now(): number };
  readonly time: { now: number };
  readonly crash: { after: number; mode: 'before' | 'after' };
  readonly kernels: readonly Kernel[];
  /** The store the kernels write through (writes crash when armed). */
  readonly store: Store;
}

export async function world(make: () => Promise<KernelConformanceSubject>, seed: number): Promise<World> {
  const { store } = await make();
  let state = seed >>> 0 || 1;
  const rand = (n: number): number => {
    state = (state * 1_103_515_245 + 12_345) >>> 0; // a fixed-seed LCG: the walk replays from its seed
    return (state >>> 8) % n;
  };
  const time = { now: 1_000_000 };
  const clock = {
    now: () => time.now,
    setTimeout: (): never => fail('the kernel must not set timers'),
    clearTimeout: () => {},
  } as unknown as Clock; // a clock the walk moves by hand; the kernel only reads now()
  const crash = { after: Number.POSITIVE_INFINITY, mode: 'before' as 'before' | 'after' };
  const crashing: Store = {
    ...store,
    get: (key) => store.get(key),
    getEntry: (key) => store.getEntry(key),
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    list: (prefix) => store.list(prefix),
    close: () => store.close(),
    async compareAndSet(key, version, value, options) {
      crash.after -= 1;
      if (crash.after < 0 && crash.mode === 'before') throw new Error('crashed before the write');
      const result = await store.compareAndSet(key, version, value, options);
      if (crash.after < 0) throw new Error('crashed after the write');
      return result;
    },
  };
  const kernels = ['p0', 'p1', 'p2'].map((owner) =>
    createKernel({ store: crashing, clock, owner, graceMs: 3_600_000 }),
  );
  return { rand, clock: clock as World['clock'], time, crash, kernels, store: crashing };
}

/** Moves time: mostly a little forwards, sometimes past every lease, sometimes backwards. */
export function tick(w: World): void {
  const roll = w.rand(10);
  w.time.now += roll < 6 ? w.rand(400) : roll < 8 ? 2_000 + w.rand(2_000) : -w.rand(1_500);
}

/** Arms or disarms the crash: from the Nth write on, writes throw before or after they land. */
export function maybeCrash(w: World): void {
  if (w.rand(8) !== 0) return;
  w.crash.after = w.rand(3) === 0 ? Number.POSITIVE_INFINITY : w.rand(4);
  w.crash.mode = w.rand(2) === 0 ? 'before' : 'after';
}

export function fail(message: string): never {
  throw new TestingError('assertion_failed', `kernel conformance: ${message}`);
}

export const LEASE_MS = 1_000;

/** Runs one or two operations at once (two processes racing), each given its process and an id. */
export async function round(
  w: World,
  step: number,
  op: (p: number, id: string) => Promise<void>,
): Promise<void> {
  tick(w);
  maybeCrash(w);
  const racers = 1 + w.rand(2);
  const picks = Array.from({ length: racers }, (_, i) => [w.rand(3), `${step}.${i}`] as const);
  await Promise.all(picks.map(([p, id]) => op(p, id)));
  w.crash.after = Number.POSITIVE_INFINITY; // a restarted process: the store works again
}
