import type { Clock, HeldClaim, Store } from '@parley/core';
import { ToolsError } from '../errors.js';
import type { GateMemorySnapshot, RememberedCall } from '../snapshot.js';
import type { CallContent } from './content.js';
import {
  contentOfCall,
  type Remembered,
  type StoredCall,
  type StoredLookup,
  sizeOf,
  toRemembered,
  toSettled,
} from './remembered.js';
import type { CallBase, Settled } from './runtime.js';
import { createStoredCalls, type StoredCalls } from './stored-calls.js';
import { contentIndex, type Entry, frozenCopy, MIXED, type TurnMemory } from './turn-memory.js';

/** The once-per-turn memory of a gate: a bounded local map by turn, optionally backed by a core `Store`. */
export interface CallMemory {
  local(turn: number, id: string): Remembered | undefined;
  /** Whether `turn` is older than the kept window (its calls are forgotten, so none may run). */
  stale(turn: number): boolean;
  /**
   * Moves the window to `turn` and reserves room for a call that may run, `bound` bytes at most
   * (`exact()` measures them, when the bound does not fit); the bytes reserved, or `-1` when the
   * caps would be passed (a result may take the bytes past the cap once: the calls after it are
   * refused). What is remembered counts its upper bound until the caps need its exact length.
   */
  reserve(turn: number, bound: number, exact: (() => number) | undefined): number;
  unreserve(bytes: number): void;
  /**
   * Remembers a call; `batch` tells the batch it came in (`-1` for an earlier life), `idBytes` the
   * UTF-8 length of the id when the caller knows it.
   */
  remember(turn: number, id: string, entry: Remembered, batch: number, idBytes?: number): void;
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
  // The kept turns in the order they were first written, in `slots[0 … kept)`, scanned from the
  // newest end (a gate mostly writes to its latest turn). Not a Map, and an array that never
  // shrinks: a container that takes and forgets a turn at every turn by reallocating its storage
  // leaves retired storage in the old generation still pointing at recent calls, so V8 promotes
  // every call's outcome before it can be freed. Forgotten slots are overwritten in place.
  const slots: (TurnMemory | undefined)[] = [];
  let kept = 0;
  const find = (turn: number): TurnMemory | undefined => {
    for (let i = kept - 1; i >= 0; i--) if ((slots[i] as TurnMemory).turn === turn) return slots[i];
    return undefined;
  };
  const keptTurns = (): TurnMemory[] => slots.slice(0, kept) as TurnMemory[];
  const claims = new Map<string, HeldClaim>();
  /** The frozen copies snapshots hold, and the entries they were written from. */
  const copies = new WeakMap<object, Entry>();
  let count = 0;
  let bytes = 0;
  /** The latest turn the memory moved to: turns at or below `horizon - keepTurns` are forgotten. */
  let horizon: number | undefined;
  let reservedCalls = 0;
  let reservedBytes = 0;
  const keyOf = (turn: number, id: string): string => `${prefix}${turn}:${id}`;

  /** The stored calls; `stored`, `claim` and `release` are called only when `persistent`. */
  const backing = (): StoredCalls => calls as StoredCalls;
  const read = (turn: number, id: string): Promise<StoredLookup> => backing().read(keyOf(turn, id), turn, id);

  const latest = (): number | undefined => {
    let top: number | undefined;
    for (const { turn } of keptTurns()) if (top === undefined || turn > top) top = turn;
    return top;
  };

  /** Moves the window up to `turn`, forgetting the turns that fall out of it. */
  function advance(turn: number): void {
    if (horizon !== undefined && turn <= horizon) return;
    horizon = turn;
    const oldest = turn - keepTurns;
    for (let i = 0; i < kept; i++) {
      if ((slots[i] as TurnMemory).turn <= oldest) {
        dropWhere((at) => at <= oldest);
        return;
      }
    }
  }

  /** Forgets the turns `doomed` answers true for, keeping the others in order. */
  function dropWhere(doomed: (turn: number) => boolean): void {
    let left = 0;
    for (let i = 0; i < kept; i++) {
      const memory = slots[i] as TurnMemory;
      if (!doomed(memory.turn)) {
        slots[left++] = memory;
        continue;
      }
      for (const entry of memory.calls.values()) {
        count--;
        bytes -= entry.size;
      }
    }
    for (let i = left; i < kept; i++) slots[i] = undefined;
    kept = left;
  }

  function append(memory: TurnMemory): void {
    if (kept < slots.length) slots[kept] = memory;
    else slots.push(memory);
    kept++;
  }

  /** Remembers `entry` under `id` (`size`: what it counts, `copy`: its snapshot copy, when known). */
  function put(
    turn: number,
    id: string,
    entry: Remembered,
    batch: number,
    size: number,
    exact: boolean,
    copy?: RememberedCall,
  ): void {
    advance(turn);
    if (turn <= (horizon as number) - keepTurns) return; // out of the window (a snapshot's old turn)
    let memory = find(turn);
    if (memory === undefined) {
      memory = { turn, calls: new Map(), byContent: undefined, ranBatch: undefined };
      append(memory);
    }
    const previous = memory.calls.get(id);
    if (previous !== undefined) {
      count--;
      bytes -= previous.size;
    }
    const kept: Entry = { settled: entry.settled, content: entry.content, size, exact, batch, copy };
    memory.calls.set(id, kept);
    if (copy !== undefined) copies.set(copy, kept);
    if (entry.settled.ran) {
      if (memory.ranBatch === undefined) memory.ranBatch = batch;
      else if (memory.ranBatch !== batch) memory.ranBatch = MIXED;
      const text = memory.byContent === undefined ? undefined : entry.content.text;
      if (text !== undefined && !memory.byContent?.has(text)) memory.byContent?.set(text, id);
    }
    count++;
    bytes += size;
  }

  /** Measures exactly what every kept entry counts (once each), instead of its upper bound. */
  function tighten(): void {
    for (let i = 0; i < kept; i++) {
      for (const [id, entry] of (slots[i] as TurnMemory).calls) {
        if (entry.exact) continue;
        const size = sizeOf(id, entry, true);
        bytes += size - entry.size;
        entry.size = size;
        entry.exact = true;
      }
    }
  }

  return {
    persistent: store !== undefined,
    local: (turn, id) => find(turn)?.calls.get(id),
    sameContent(turn, content, batch) {
      const memory = find(turn);
      // Nothing ran in another batch of this turn: no text needs writing to know there is no match.
      if (memory === undefined || memory.ranBatch === undefined) return undefined;
      if (memory.byContent === undefined && memory.ranBatch === batch) return undefined;
      const id = contentIndex(memory).get(content.text);
      const entry = id === undefined ? undefined : memory.calls.get(id);
      return entry === undefined || id === undefined || entry.batch === batch ? undefined : { id, entry };
    },
    owns: (call) => typeof call === 'object' && call !== null && copies.has(call),
    stale: (turn) => horizon !== undefined && turn <= horizon - keepTurns,
    reserve(turn, bound, exact) {
      advance(turn);
      if (count + reservedCalls + 1 > maxCalls) return -1;
      let size = bound;
      if (bytes + reservedBytes + size > maxBytes) {
        tighten(); // the bounds do not fit: the caps are checked on exact lengths
        if (exact !== undefined) size = exact();
        if (bytes + reservedBytes + size > maxBytes) return -1;
      }
      reservedCalls++;
      reservedBytes += size;
      return size;
    },
    unreserve(size) {
      reservedCalls--;
      reservedBytes -= size;
    },
    remember(turn, id, entry, batch, idBytes) {
      put(turn, id, entry, batch, sizeOf(id, entry, false, idBytes), false);
    },
    stored: (turn, id) => read(turn, id),
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
    toSnapshot: () =>
      keptTurns().map((memory) => ({
        turn: memory.turn,
        calls: [...memory.calls].map(([id, entry]) => {
          const copy = entry.copy ?? frozenCopy(id, entry);
          copies.set(copy, entry);
          return copy;
        }),
      })),
    load(snapshot) {
      const previous = keptTurns();
      const before = { count, bytes, horizon };
      dropWhere(() => true);
      count = 0;
      bytes = 0;
      horizon = undefined;
      for (const { turn, calls } of snapshot) {
        for (const call of calls) {
          // A copy this memory wrote is not read again: its entry is reused as it was.
          const own = copies.get(call);
          if (own !== undefined) put(turn, call.id, own, -1, own.size, own.exact, call);
          else {
            const entry = { settled: toSettled(call), content: contentOfCall(call) };
            put(turn, call.id, entry, -1, sizeOf(call.id, entry, true), true);
          }
        }
      }
      if (count > maxCalls || bytes > maxBytes) {
        dropWhere(() => true);
        for (const memory of previous) append(memory);
        ({ count, bytes, horizon } = before);
        throw new ToolsError('invalid_snapshot', 'The snapshot remembers more calls than the gate may keep', {
          details: { maxRememberedCalls: maxCalls, maxRememberedBytes: maxBytes },
        });
      }
    },
    async forgetAfter(turn) {
      dropWhere((kept) => turn === undefined || kept > turn);
      horizon = latest();
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
