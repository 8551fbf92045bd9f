import type { Clock, HeldClaim, Store } from '@parley/core';
import type { GateMemorySnapshot } from '../snapshot.js';
import type { CallContent } from './content.js';
import { type Remembered, type StoredCall, type StoredLookup, sizeOf, toRemembered } from './remembered.js';
import type { CallBase, Settled } from './runtime.js';
import { createStoredCalls, type StoredCalls } from './stored-calls.js';
import {
  advance,
  dropTurns,
  find,
  latest,
  loadSnapshot,
  type MemoryWindow,
  put,
  sameContent,
  snapshotOf,
  tighten,
} from './memory-window.js';

/** The once-per-turn memory of a gate: a bounded local map by turn, optionally backed by a core `Store`. */
export interface CallMemory {
  local(turn: number, id: string): Remembered | undefined;
  /** Whether `turn` is older than the kept window (its calls are forgotten, so none may run). */
  stale(turn: number): boolean;
  /**
   * Moves the window to `turn` and reserves room for a call that may run: its id's `idBytes` and its
   * content's upper bound (its exact length when `exact`, or when the bound does not fit); the bytes reserved, or `-1` when the
   * caps would be passed (a result may take the bytes past the cap once: the calls after it are
   * refused). What is remembered counts its upper bound until the caps need its exact length.
   */
  reserve(turn: number, idBytes: number, content: CallContent, exact: boolean): number;
  unreserve(bytes: number): void;
  /**
   * Remembers a call; `batch` tells the batch it came in (`-1` for an earlier life), `idBytes` the
   * UTF-8 length of the id when the caller knows it.
   */
  remember(
    turn: number,
    id: string,
    settled: Settled,
    content: CallContent,
    batch: number,
    idBytes?: number,
  ): void;
  /**
   * The first call of `turn` with this content whose executor ran, when it came in another batch
   * than `batch` (in one batch, equal calls under distinct ids are distinct calls).
   */
  sameContent(
    turn: number,
    content: CallContent,
    batch: number,
  ): { readonly id: string; readonly entry: Remembered } | undefined;
  /** Whether `call` is a remembered call of a snapshot this memory wrote (shared, frozen, not copied). */
  owns(call: unknown): boolean;
  /** With a store only: reads it after a local miss. */
  stored(turn: number, id: string): Promise<StoredLookup>;
  /** Claims a call before its executor runs; `undefined` when claimed, else what the store holds. */
  claim(turn: number, base: CallBase): Promise<StoredLookup | undefined>;
  /** Writes the outcome of a claimed call (or drops the claim when the executor did not run). */
  release(turn: number, base: CallBase, settled: Settled): Promise<void>;
  readonly persistent: boolean;
  toSnapshot(): GateMemorySnapshot['turns'];
  load(turns: GateMemorySnapshot['turns']): void;
  forgetAfter(turn: number | undefined): Promise<void>;
}

export interface MemoryOptions {
  readonly keepTurns: number;
  readonly maxCalls: number;
  readonly maxBytes: number;
  readonly store: Store | undefined;
  readonly prefix: string;
  readonly ttlMs: number | undefined;
  readonly clock: Clock;
}

export function createCallMemory(options: MemoryOptions): CallMemory {
  const { keepTurns, maxCalls, maxBytes, store, prefix, ttlMs } = options;
  const calls = store === undefined ? undefined : createStoredCalls(store, ttlMs, options.clock);
  const w: MemoryWindow = {
    keepTurns,
    maxCalls,
    maxBytes,
    slots: [],
    kept: 0,
    copies: new WeakMap(),
    count: 0,
    bytes: 0,
    horizon: undefined,
    reservedCalls: 0,
    reservedBytes: 0,
  };
  const claims = new Map<string, HeldClaim>();
  const keyOf = (turn: number, id: string): string => `${prefix}${turn}:${id}`;
  /** The stored calls; `stored`, `claim` and `release` are called only when `persistent`. */
  const backing = (): StoredCalls => calls as StoredCalls;

  return {
    persistent: store !== undefined,
    local: (turn, id) => find(w, turn)?.get(id),
    sameContent: (turn, content, batch) => sameContent(w, turn, content, batch),
    owns: (call) => typeof call === 'object' && call !== null && w.copies.has(call),
    stale: (turn) => w.horizon !== undefined && turn <= w.horizon - keepTurns,
    reserve(turn, idBytes, content, exact) {
      advance(w, turn);
      if (w.count + w.reservedCalls + 1 > maxCalls) return -1;
      let size = idBytes + (exact ? content.bytes : content.bound);
      if (w.bytes + w.reservedBytes + size > maxBytes) {
        tighten(w); // the bounds do not fit: the caps are checked on exact lengths
        if (!exact) size = idBytes + content.bytes;
        if (w.bytes + w.reservedBytes + size > maxBytes) return -1;
      }
      w.reservedCalls++;
      w.reservedBytes += size;
      return size;
    },
    unreserve(size) {
      w.reservedCalls--;
      w.reservedBytes -= size;
    },
    remember(turn, id, settled, content, batch, idBytes) {
      put(w, turn, id, settled, content, batch, sizeOf(id, settled, content, false, idBytes), false);
    },
    stored: (turn, id) => backing().read(keyOf(turn, id), turn, id),
    async claim(turn, base) {
      const key = keyOf(turn, base.id);
      const taken = await backing().claim(key, base.content.text, turn, base.id);
      if (!('held' in taken)) return taken; // another gate on the same store took it first
      claims.set(key, taken.held);
      return undefined;
    },
    async release(turn, base, settled) {
      const key = keyOf(turn, base.id);
      const held = claims.get(key) as HeldClaim; // released only after this gate's claim succeeded
      claims.delete(key);
      // nothing ran: the claim is given back, so the call may run later
      const done: StoredCall = {
        state: 'done',
        ...toRemembered(base.id, settled),
        content: base.content.text,
      };
      await backing().settle(held, settled.ran ? done : undefined);
    },
    toSnapshot: () => snapshotOf(w),
    load: (snapshot) => loadSnapshot(w, snapshot),
    async forgetAfter(turn) {
      dropTurns(w, Number.NEGATIVE_INFINITY, turn ?? Number.NEGATIVE_INFINITY); // all when no turn is kept
      w.horizon = latest(w);
      if (store === undefined) return;
      const doomed: string[] = [];
      for await (const entry of store.list(prefix)) {
        const at = Number(entry.key.slice(prefix.length, entry.key.indexOf(':', prefix.length)));
        if (turn === undefined || !(at <= turn)) doomed.push(entry.key);
      }
      for (const key of doomed) await store.delete(key);
    },
  };
}
