/**
 * A set that remembers at most `capacity` keys and forgets the oldest first. The oldest is found
 * in a ring of insertion order, not with `set.values().next()`: V8 walks every deleted slot at the
 * front of a Set before it compacts, which made that call cost ~20 µs once the set was full.
 */
export class RecentSet {
  private readonly keys = new Map<string, string>();
  private readonly ring: string[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** The value remembered with a key (its confirmation id, for event ids). */
  get(key: string): string | undefined {
    return this.keys.get(key);
  }

  add(key: string, value = ''): void {
    if (this.keys.has(key)) return;
    if (this.ring.length < this.capacity) {
      this.ring.push(key);
    } else {
      this.keys.delete(this.ring[this.next] as string); // the ring is full, so the slot holds a key
      this.ring[this.next] = key;
      this.next = (this.next + 1) % this.capacity;
    }
    this.keys.set(key, value);
  }

  get size(): number {
    return this.keys.size;
  }
}
