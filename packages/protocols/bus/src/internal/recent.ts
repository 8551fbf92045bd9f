/**
 * A set that remembers at most `capacity` keys and forgets the oldest first. The oldest is found
 * in a ring of insertion order, not with `set.values().next()`: V8 walks every deleted slot at the
 * front of a Set before it compacts, which made that call cost ~20 µs once the set was full.
 */
export class RecentSet {
  private readonly keys = new Set<string>();
  private readonly ring: string[] = [];
  private next = 0;
  private length = 0;

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.has(key)) return;
    if (this.ring.length < this.capacity) {
      this.ring.push(key);
    } else {
      const oldest = this.ring[this.next] as string; // the ring is full, so the slot holds a key
      this.keys.delete(oldest);
      this.length -= oldest.length;
      this.ring[this.next] = key;
      this.next = (this.next + 1) % this.capacity;
    }
    this.keys.add(key);
    this.length += key.length;
  }

  get size(): number {
    return this.keys.size;
  }

  /** The characters of every key held, together. */
  get chars(): number {
    return this.length;
  }
}
