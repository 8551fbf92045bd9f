// Helpers of the kernel tests: a codec, a clock that can jump both ways, and a store whose writes fail or race.
import {
  type Clock,
  createKernel,
  createMemoryStore,
  type JsonValue,
  type RecordCodec,
  type Store,
  type TimerHandle,
} from '../src/index.js';

/** A memory store whose listing fails as a dropped connection would. */
export const unlistable = (): Store => ({
  ...createMemoryStore(),
  list: () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('connection reset')) }),
  }),
});

/** A kernel record's stored form, as another writer or version might have written it. */
export const envelope = (kind: string, version: number, data: JsonValue): JsonValue => ({
  kind,
  version,
  data,
  lease: null,
  fence: 0,
  deadlineAt: null,
});

export interface Counter {
  readonly n: number;
}

export const counter: RecordCodec<Counter> = {
  kind: 'test.counter',
  version: 1,
  decode: (data) =>
    typeof data === 'object' && data !== null && typeof (data as { n?: unknown }).n === 'number'
      ? (data as unknown as Counter)
      : undefined,
  encode: (value) => ({ n: value.n }),
};

/** Adds `by` to the counter; `by: null` deletes it. */
export const add = (current: Counter | undefined, by: number | null) =>
  by === null
    ? { value: undefined, effects: [] as string[] }
    : { value: { n: (current?.n ?? 0) + by }, effects: [`+${by}`] };

/** A clock whose time is set directly (forwards or backwards); it has no timers. */
export function jumpClock(start = 1_000): Clock & { set(at: number): void; advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    set: (at) => {
      now = at;
    },
    advance: (ms) => {
      now += ms;
    },
    setTimeout: () => {
      throw new Error('the kernel sets no timers');
    },
    clearTimeout: (_handle: TimerHandle | undefined) => {},
  };
}

/** Wraps a store: `failWrites` makes the next writes throw, `before` runs before each compare-and-set. */
export function scripted(
  store: Store,
): Store & { failWrites: number; failReads: number; before?: (() => Promise<void>) | undefined } {
  const wrapped = {
    ...store,
    failWrites: 0,
    failReads: 0,
    before: undefined as (() => Promise<void>) | undefined,
    async getEntry(key: string) {
      if (wrapped.failReads > 0) {
        wrapped.failReads--;
        throw new Error('read failed');
      }
      return store.getEntry(key);
    },
    async compareAndSet(...args: Parameters<Store['compareAndSet']>) {
      const hook = wrapped.before;
      if (hook !== undefined) await hook();
      if (wrapped.failWrites > 0) {
        wrapped.failWrites--;
        throw new Error('write failed');
      }
      return store.compareAndSet(...args);
    },
  };
  return wrapped;
}

/** Two kernels (owners `a` and `b`) over one scripted memory store, on a clock starting at 1,000. */
export function twoKernels(graceMs?: number) {
  const clock = jumpClock(1_000);
  const store = scripted(createMemoryStore({ clock }));
  const grace = graceMs === undefined ? {} : { graceMs };
  return {
    clock,
    store,
    a: createKernel({ store, clock, owner: 'a', ...grace }),
    b: createKernel({ store, clock, owner: 'b', ...grace }),
  };
}

/** Two kernels (owners `a` and `b`) over one plain memory store, on a clock starting at 1,000. */
export function plainKernels() {
  const clock = jumpClock(1_000);
  const store = createMemoryStore({ clock });
  return {
    clock,
    store,
    a: createKernel({ store, clock, owner: 'a' }),
    b: createKernel({ store, clock, owner: 'b' }),
  };
}
