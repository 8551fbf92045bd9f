/**
 * An entry of {@link DeadlineHeap}: due time, insertion order and its current slot. The heap writes
 * `index`; the caller sets `at` and a `seq` that orders entries due at the same time.
 *
 * @example
 * ```ts
 * import type { HeapItem } from '@parley/core';
 *
 * const item: HeapItem & { id: string } = { id: 'c1', at: 1_000, seq: 0, index: -1 };
 * console.log(item.index); // -1 (in no heap)
 * ```
 */
export interface HeapItem {
  at: number;
  seq: number;
  /** Position in the heap array, or -1 once removed. */
  index: number;
}

/**
 * A binary min-heap ordered by `at`, then by `seq`, with O(log n) removal and replacement of any item
 * (each item knows its slot). The manual clock, the deadline queue and the memory store's expiries
 * use it. It needs no clock or timer: use it where the due items are taken when work arrives, such as
 * bounds on things that expire.
 *
 * @example
 * ```ts
 * import { DeadlineHeap, type HeapItem } from '@parley/core';
 *
 * const heap = new DeadlineHeap<HeapItem & { id: string }>();
 * heap.push({ id: 'late', at: 300, seq: 0, index: -1 });
 * const early = { id: 'early', at: 100, seq: 1, index: -1 };
 * heap.push(early);
 * console.log(heap.peek()?.id); // early
 * heap.remove(early);
 * console.log(heap.pop()?.id, heap.size); // late 0
 * ```
 */
export class DeadlineHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  /** How many items the heap holds. */
  get size(): number {
    return this.items.length;
  }

  /** The earliest item, left in the heap. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds `item` (its `at` and `seq` are read now: change them only through `replace`). */
  push(item: T): void {
    item.index = this.items.length;
    this.items.push(item);
    this.up(item.index);
  }

  /** Takes the earliest item out. */
  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Takes `item` out wherever it is; false when it is not in this heap. */
  remove(item: T): boolean {
    const index = item.index;
    if (index < 0 || this.items[index] !== item) return false;
    const last = this.items.pop() as T; // non-empty: item is in it
    item.index = -1;
    if (last !== item) {
      this.items[index] = last;
      last.index = index;
      this.down(index);
      this.up(last.index);
    }
    return true;
  }

  /** Puts `item` in the place of `old` (pushed instead when `old` is not in the heap) and restores the order. */
  replace(old: T, item: T): void {
    const index = old.index;
    if (index < 0 || this.items[index] !== old) {
      this.push(item);
      return;
    }
    old.index = -1;
    this.items[index] = item;
    item.index = index;
    this.down(index);
    this.up(item.index);
  }

  /** Takes every item out and returns them (in heap order, not sorted). */
  clear(): T[] {
    const all = this.items.splice(0);
    for (const item of all) item.index = -1;
    return all;
  }

  private less(a: T, b: T): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  /** Moves the item at `index` up to its place: parents slide down into the hole, the item is set once. */
  private up(index: number): void {
    const items = this.items;
    const item = items[index] as T;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as T;
      if (!this.less(item, above)) break;
      items[i] = above;
      above.index = i;
      i = parent;
    }
    items[i] = item;
    item.index = i;
  }

  /** Moves the item at `index` down to its place: the smaller child slides up into the hole each level. */
  private down(index: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[index] as T;
    let i = index;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.less(items[child + 1] as T, items[child] as T)) child++;
      const below = items[child] as T;
      if (!this.less(below, item)) break;
      items[i] = below;
      below.index = i;
      i = child;
    }
    items[i] = item;
    item.index = i;
  }
}
