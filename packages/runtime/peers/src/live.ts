// The conversations one instance opened and has not seen expire: the count `maxConversations` bounds.
// A send forgets the expired ones first. They are found in expiry order (a binary heap), so a send
// pays for the conversations that expired, not for every open one, in whatever order they expire (a
// wall clock stepped back opens one that expires before an older one).
import { createChurnMap } from '@parley/core';

/** @internal */
export interface LiveConversations {
  /** How many are open. */
  readonly size: number;
  /** Counts `id` as open until `expiresAt` (a later call for the same id moves its expiry). */
  add(id: string, expiresAt: number): void;
  /** Forgets every conversation whose expiry is at or before `now`. */
  sweep(now: number): void;
}

interface Due {
  readonly id: string;
  readonly at: number;
}

/** @internal */
export function createLiveConversations(): LiveConversations {
  // ids come and go with conversations: a Map would keep every expired one alive (see createChurnMap)
  const expiries = createChurnMap<string, number>();
  /** Every expiry added and not yet swept, earliest first at index 0; an id's older expiry is skipped. */
  const heap: Due[] = [];
  return {
    get size() {
      return expiries.size;
    },
    add(id, expiresAt) {
      expiries.set(id, expiresAt);
      heap.push({ id, at: expiresAt });
      up(heap, heap.length - 1);
    },
    sweep(now) {
      while (heap.length > 0 && (heap[0] as Due).at <= now) {
        const due = pop(heap);
        if (expiries.get(due.id) === due.at) expiries.delete(due.id);
      }
    },
  };
}

function up(heap: Due[], from: number): void {
  const item = heap[from] as Due;
  let i = from;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const above = heap[parent] as Due;
    if (above.at <= item.at) break;
    heap[i] = above;
    i = parent;
  }
  heap[i] = item;
}

function pop(heap: Due[]): Due {
  const top = heap[0] as Due;
  const last = heap.pop() as Due;
  if (heap.length === 0) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && (heap[right] as Due).at < (heap[left] as Due).at ? right : left;
    if ((heap[child] as Due).at >= last.at) break;
    heap[i] = heap[child] as Due;
    i = child;
  }
  heap[i] = last;
  return top;
}
