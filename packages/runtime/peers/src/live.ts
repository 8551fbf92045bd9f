// The conversations one instance opened and has not seen expire: the count `maxConversations` bounds.
// A send forgets the expired ones first. They are found in expiry order (core's deadline heap), so a
// send pays for the conversations that expired, not for every open one, in whatever order they expire
// (a wall clock stepped back opens one that expires before an older one).
import { createChurnMap, DeadlineHeap, type HeapItem } from '@parley/core';

/** @internal */
export interface LiveConversations {
  /** How many are open. */
  readonly size: number;
  /** Counts `id` as open until `expiresAt` (a later call for the same id moves its expiry). */
  add(id: string, expiresAt: number): void;
  /** Forgets every conversation whose expiry is at or before `now`. */
  sweep(now: number): void;
}

interface Due extends HeapItem {
  readonly id: string;
}

/** @internal */
export function createLiveConversations(): LiveConversations {
  // ids come and go with conversations: a Map would keep every expired one alive (see createChurnMap)
  const byId = createChurnMap<string, Due>();
  const heap = new DeadlineHeap<Due>();
  let seq = 0;
  return {
    get size() {
      return byId.size;
    },
    add(id, expiresAt) {
      const due: Due = { id, at: expiresAt, seq: seq++, index: -1 };
      const old = byId.get(id);
      if (old === undefined) heap.push(due);
      else heap.replace(old, due);
      byId.set(id, due);
    },
    sweep(now) {
      for (let due = heap.peek(); due !== undefined && due.at <= now; due = heap.peek()) {
        heap.pop();
        byId.delete(due.id);
      }
    },
  };
}
