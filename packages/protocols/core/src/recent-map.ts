import { CoreError } from './errors.js';

/**
 * Options of {@link createRecentMap}.
 *
 * @example
 * ```ts
 * import type { RecentMapOptions } from '@parley/core';
 *
 * const options: RecentMapOptions<string> = { maxEntries: 10_000, onEvict: (key) => console.log(`forgot ${key}`) };
 * ```
 */
export interface RecentMapOptions<K> {
  /** How many entries it keeps at most; a positive integer. */
  readonly maxEntries: number;
  /** Called with each key forgotten to make room (not for keys replaced by `set`). */
  readonly onEvict?: ((key: K) => void) | undefined;
}

/**
 * A map bounded to `maxEntries` entries that forgets the entry written longest ago first: the
 * "recently seen" memory of redelivered event ids, settled ids and reply places.
 *
 * @example
 * ```ts
 * import { createRecentMap } from '@parley/core';
 *
 * const seen = createRecentMap<string, number>({ maxEntries: 2 });
 * seen.set('a', 1);
 * seen.set('b', 2);
 * seen.set('c', 3); // forgets 'a'
 * console.log(seen.has('a'), seen.get('c'), seen.size); // false 3 2
 * ```
 */
export interface RecentMap<K, V> {
  has(key: K): boolean;
  get(key: K): V | undefined;
  /** Writes `value` under `key` and makes it the newest entry, forgetting the oldest past the cap. */
  set(key: K, value: V): void;
  /**
   * Writes `value` under `key` only when the key is not held (a held key keeps its value and its
   * place); returns whether it was written.
   */
  add(key: K, value: V): boolean;
  /** Forgets `key` (not an eviction: `onEvict` is not called); returns whether it was held. */
  delete(key: K): boolean;
  readonly size: number;
}

interface Slot<V> {
  value: V;
  /** The write that made the entry the newest; a queued write with another number is stale. */
  seq: number;
}

/**
 * Creates a {@link RecentMap}. Every operation is O(1) (amortised): the order of writes is kept in a
 * queue next to the map, not found with `map.keys().next()`, which V8 makes slow once many entries
 * at the front of a full map were deleted.
 *
 * @throws CoreError `invalid_argument` when `maxEntries` is not a positive integer.
 * @example
 * ```ts
 * import { createRecentMap } from '@parley/core';
 *
 * const delivered = createRecentMap<string, true>({ maxEntries: 10_000 });
 * console.log(delivered.add('evt_1', true), delivered.add('evt_1', true)); // true false
 * ```
 */
export function createRecentMap<K, V>(options: RecentMapOptions<K>): RecentMap<K, V> {
  const { maxEntries, onEvict } = options;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new CoreError(
      'invalid_argument',
      `maxEntries must be a positive integer, not ${String(maxEntries)}`,
      {
        details: { maxEntries },
      },
    );
  }
  let slots = new Map<K, Slot<V>>();
  // the order of writes: key and write number side by side from `head` on (no object per write)
  let keys: K[] = [];
  let seqs: number[] = [];
  let head = 0;
  let seq = 0;
  /** How many writes queued after `head` are stale (their key written again or deleted since). */
  let stale = 0;

  const live = (i: number): boolean => slots.get(keys[i] as K)?.seq === seqs[i];

  function write(key: K, value: V, slot: Slot<V> | undefined): void {
    seq += 1;
    if (slot === undefined) slots.set(key, { value, seq });
    else {
      slot.value = value;
      slot.seq = seq;
      stale++; // its earlier write in the queue
    }
    keys.push(key);
    seqs.push(seq);
    while (slots.size > maxEntries) {
      const oldest = head++; // more slots than live writes queued is impossible
      if (!live(oldest)) {
        stale--;
        continue;
      }
      slots.delete(keys[oldest] as K);
      onEvict?.(keys[oldest] as K);
    }
    // the consumed head (and stale writes) are dropped once the queue outgrows the cap
    if (keys.length > 2 * maxEntries + 16) compact();
  }

  function compact(): void {
    // the entries go into a new Map too: V8 keeps what a busy Map held alive through its old hash
    // tables (see churn-map.ts); by now at least `maxEntries` writes were evicted, deleted or replaced
    slots = new Map(slots);
    if (stale === 0) {
      keys = keys.slice(head);
      seqs = seqs.slice(head);
    } else {
      const kept: number[] = [];
      for (let i = head; i < keys.length; i++) if (live(i)) kept.push(i);
      keys = kept.map((i) => keys[i] as K);
      seqs = kept.map((i) => seqs[i] as number);
      stale = 0;
    }
    head = 0;
  }

  return {
    has: (key) => slots.has(key),
    get: (key) => slots.get(key)?.value,
    set: (key, value) => write(key, value, slots.get(key)),
    add(key, value) {
      if (slots.has(key)) return false;
      write(key, value, undefined);
      return true;
    },
    // its queued write is stale from now on: skipped when the oldest is evicted, dropped when compacted
    delete(key) {
      if (!slots.delete(key)) return false;
      stale++;
      return true;
    },
    get size() {
      return slots.size;
    },
  };
}
