// On V8 (Node 20 and its V8 11.3) a `Map` that is rehashed keeps a link from its old hash table to the
// new one, for the iterators still walking the old table, and the old table keeps the entries it
// held. Once one of those tables is in the old generation (a full collection promotes the table in
// use), it is dead but old, so each young collection treats it as a root. Through it, the next
// table survives, is promoted in turn and keeps the one after it. That chain keeps every entry a
// table held, deleted or not. Every value a busy `Map` ever held is then copied and promoted, with
// everything it references, until the next full collection. In the bench, after one full collection,
// a chat-flow start + reply with one session open promoted 2.2 kB instead of the 0.7 kB it keeps,
// and spent 8.2 µs instead of 4.0 µs in young collections. A new `Map`
// object starts a chain of its own. Nothing old links to it, so moving the entries into a new
// `Map` now and then ends the chain.

/**
 * A `Map` for keys that come and go (pending requests, open sessions, recent writes), made by
 * {@link createChurnMap}. It answers like a `Map`; `set` may move its entries into a new inner `Map`.
 *
 * @example
 * ```ts
 * import { type ChurnMap, createChurnMap } from '@parley/core';
 *
 * const pending: ChurnMap<string, { readonly sentAt: number }> = createChurnMap();
 * pending.set('req_1', { sentAt: 0 });
 * console.log(pending.get('req_1'), pending.delete('req_1'), pending.size); // { sentAt: 0 } true 0
 * ```
 */
export interface ChurnMap<K, V> extends Iterable<[K, V]> {
  /** The value held under `key`, as `Map.prototype.get`. */
  get(key: K): V | undefined;
  /** Whether `key` is held, as `Map.prototype.has`. */
  has(key: K): boolean;
  /** Writes `value` under `key` (a new key goes last in iteration order, as in a `Map`); returns the map. */
  set(key: K, value: V): this;
  /** Forgets `key`; returns whether it was held. */
  delete(key: K): boolean;
  /** Forgets every key. */
  clear(): void;
  /** How many keys are held. */
  readonly size: number;
  /** The keys in insertion order, as `Map.prototype.keys`. */
  keys(): IterableIterator<K>;
  /** The values in insertion order, as `Map.prototype.values`. */
  values(): IterableIterator<V>;
  /** The entries in insertion order, as `Map.prototype.entries` (and the map's own iterator). */
  entries(): IterableIterator<[K, V]>;
  /** Calls `callback` with each value, key and the map, in insertion order. */
  forEach(callback: (value: V, key: K, map: ChurnMap<K, V>) => void): void;
}

/** The fewest deletions after which the entries move to a new `Map`. */
const MIN_DELETIONS = 64;

/**
 * Iterators dropped before they ended (`map.keys().next()` to read the first key): once collected,
 * nobody can go on with them, so their walk no longer holds the entries in place.
 */
const dropped = new FinalizationRegistry<() => void>((end) => end());

class Churn<K, V> implements ChurnMap<K, V> {
  #map: Map<K, V>;
  /** Deletions since the entries last moved. */
  #deleted = 0;
  /** Iterations under way: while one walks the inner `Map`, the entries never move. */
  #walking = 0;
  readonly #ended = (): void => {
    this.#walking--;
  };

  constructor(entries?: Iterable<readonly [K, V]>) {
    this.#map = new Map(entries);
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): this {
    const map = this.#map;
    const size = map.size;
    map.set(key, value);
    // a new key, after at least as many deletions as there are entries: moving them costs O(1) per deletion
    if (map.size > size && this.#deleted >= MIN_DELETIONS && this.#deleted >= size && this.#walking === 0) {
      this.#map = new Map(map);
      this.#deleted = 0;
    }
    return this;
  }

  delete(key: K): boolean {
    if (!this.#map.delete(key)) return false;
    this.#deleted++;
    return true;
  }

  clear(): void {
    // an iteration under way ends, as in a Map: it walks this very Map
    if (this.#walking > 0) this.#map.clear();
    else this.#map = new Map();
    this.#deleted = 0;
  }

  keys(): IterableIterator<K> {
    return this.#walk(this.#map.keys());
  }

  values(): IterableIterator<V> {
    return this.#walk(this.#map.values());
  }

  entries(): IterableIterator<[K, V]> {
    return this.#walk(this.#map.entries());
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: ChurnMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }

  /**
   * Walks `inner` (the live `Map`'s own iterator): the entries stay in that `Map` until the walk ends,
   * runs out or is returned, or until its iterator, dropped unfinished, is collected.
   */
  #walk<T>(inner: IterableIterator<T>): IterableIterator<T> {
    this.#walking++;
    const token = {};
    const walk = this.#steps(inner, token);
    dropped.register(walk, this.#ended, token);
    return walk;
  }

  *#steps<T>(inner: IterableIterator<T>, token: object): Generator<T, undefined, undefined> {
    try {
      yield* inner;
    } finally {
      dropped.unregister(token);
      this.#ended();
    }
    return undefined;
  }
}

/**
 * Creates a {@link ChurnMap}: a `Map` whose deleted entries a young garbage collection can free.
 * On V8 a `Map`'s successive hash tables stay linked to each other. Once one of them has been
 * promoted, every entry the map holds later is promoted by the young collector, with all it
 * references, until a full collection. A chat-flow turn of the bench spent twice as long in young
 * collections for it (8.2 µs instead of 4.0 µs). This map moves its entries into a new `Map` after as many deletions as it holds entries (at
 * least 64), on the next new key, which ends the chain. That costs one entry moved per deletion at
 * most, about 0.2 µs on Node 20, paid all at once: a map of 10,000 entries stops for about 2 ms once
 * per 10,000 deletions. Use it for maps whose keys are added and deleted all the time. A map that only
 * grows does not need it.
 *
 * Reading, writing and deleting work as in a `Map`, also while iterating. The entries never move
 * while an iteration of this map is under way. An iterator left unfinished (`keys().next()` to read
 * the first key) keeps them in place until it is garbage collected; `for (const key of map.keys())`
 * with `break` ends at once.
 *
 * @example
 * ```ts
 * import { createChurnMap } from '@parley/core';
 *
 * const open = createChurnMap<string, number>([['chat_1', 1]]);
 * for (let i = 2; i <= 1000; i++) {
 *   open.set(`chat_${i}`, i);
 *   open.delete(`chat_${i - 1}`); // one open at a time
 * }
 * console.log([...open.keys()], open.get('chat_1000')); // [ 'chat_1000' ] 1000
 * ```
 */
export function createChurnMap<K, V>(entries?: Iterable<readonly [K, V]>): ChurnMap<K, V> {
  return new Churn(entries);
}
