/** An entry of {@link DeadlineHeap}: due time, insertion order and its current slot. */
export interface HeapItem {
  at: number;
  seq: number;
  /** Position in the heap array, or -1 once removed. */
  index: number;
}

/**
 * A binary min-heap ordered by `at`, then by insertion `seq`, with O(log n) removal of any item
 * (each item knows its slot). Shared by the manual clock and the deadline queue.
 */
export class DeadlineHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.index = this.items.length;
    this.items.push(item);
    this.up(item.index);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

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

  clear(): T[] {
    const all = this.items.splice(0);
    for (const item of all) item.index = -1;
    return all;
  }

  private less(a: T, b: T): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.items[i] as T;
    const b = this.items[j] as T;
    this.items[i] = b;
    this.items[j] = a;
    b.index = i;
    a.index = j;
  }

  private up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.items[i] as T, this.items[parent] as T)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(index: number): void {
    let i = index;
    const n = this.items.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(this.items[left] as T, this.items[smallest] as T)) smallest = left;
      if (right < n && this.less(this.items[right] as T, this.items[smallest] as T)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
