import type { Entry } from './context.js';

// The order of one entry's store work: its writes, and the reads that follow them, run one after
// another; the next starts at once when none is in flight, so a write of an idle entry waits for
// no promise.

/**
 * Runs `run` after the entry's earlier store work (its writes, and the reads that follow them)
 * ended, and makes it the entry's latest: at once when none is in flight (no promise to wait
 * for) and `now`, else chained. `run` must call `ended(entry)` when it is done with the store.
 */
export function inOrder<T>(entry: Entry, run: () => Promise<T>, now = true): Promise<T> {
  const idle = entry.busy === 0 && now;
  entry.busy++;
  const settled = idle ? run() : entry.io.then(run);
  entry.io = settled;
  return settled;
}

/** Ends one piece of store work that `inOrder` started. */
export function ended(entry: Entry): void {
  entry.busy--;
}
