import type { HistoryEntry } from '../types.js';
import type { CompiledTransition } from './compiled.js';

/**
 * @internal An actor's bounded history: a ring of two arrays, the compiled transitions taken
 * (each holds `from`, `to` and `event`) and their times as unboxed doubles, so recording a
 * transition allocates nothing once the ring is full. Entries are built only when read.
 */
export class HistoryRing {
  private readonly ts: CompiledTransition[] = [];
  private readonly at: number[] = [];
  /** Entries written in all. */
  private n = 0;
  /** The slot written next. */
  private w = 0;

  constructor(private readonly limit: number) {}

  record(t: CompiledTransition, at: number): void {
    const slot = this.w;
    this.ts[slot] = t; // appends until the ring is full, then overwrites the oldest
    this.at[slot] = at;
    this.w = slot + 1 === this.limit ? 0 : slot + 1;
    this.n++;
  }

  /** The entries kept, oldest first. */
  entries(): HistoryEntry[] {
    const limit = this.limit;
    const count = Math.min(this.n, limit);
    const start = this.n <= limit ? 0 : this.n % limit;
    const out: HistoryEntry[] = new Array(count);
    for (let k = 0; k < count; k++) {
      const slot = (start + k) % limit;
      const t = this.ts[slot] as CompiledTransition;
      out[k] = { from: t.from, to: t.to, event: t.event, at: this.at[slot] as number };
    }
    return out;
  }
}
