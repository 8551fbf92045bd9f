// The window of turns a gate's call memory keeps: its turns in slots, what they count, and the
// module functions that move, fill, measure, snapshot and load it.
import { ToolsError } from '../errors.js';
import type { GateMemorySnapshot, RememberedCall } from '../snapshot.js';
import type { CallContent } from './content.js';
import { contentOfCall, type Remembered, sizeOf, toSettled } from './remembered.js';
import type { Settled } from './runtime.js';
import { contentIndex, type Entry, frozenCopy, MIXED, TurnMemory } from './turn-memory.js';

/** @internal The kept turns of one memory and what they count. */
export interface MemoryWindow {
  readonly keepTurns: number;
  readonly maxCalls: number;
  readonly maxBytes: number;
  /**
   * The kept turns in the order they were first written, in `slots[0 … kept)`, scanned from the
   * newest end (a gate mostly writes to its latest turn). Not a Map, and an array that never
   * shrinks: a container that takes and forgets a turn at every turn by reallocating its storage
   * leaves retired storage in the old generation still pointing at recent calls, so V8 promotes
   * every call's outcome before it can be freed. Forgotten slots are overwritten in place.
   */
  readonly slots: (TurnMemory | undefined)[];
  kept: number;
  /** The frozen copies snapshots hold, and the entries they were written from. */
  readonly copies: WeakMap<object, Entry>;
  count: number;
  bytes: number;
  /** The latest turn the memory moved to: turns at or below `horizon - keepTurns` are forgotten. */
  horizon: number | undefined;
  reservedCalls: number;
  reservedBytes: number;
}

/** @internal The kept memory of `turn`. */
export function find(w: MemoryWindow, turn: number): TurnMemory | undefined {
  const { slots } = w;
  for (let i = w.kept - 1; i >= 0; i--) if ((slots[i] as TurnMemory).turn === turn) return slots[i];
  return undefined;
}

function keptTurns(w: MemoryWindow): TurnMemory[] {
  return w.slots.slice(0, w.kept) as TurnMemory[];
}

/** @internal The latest kept turn. */
export function latest(w: MemoryWindow): number | undefined {
  let top: number | undefined;
  for (const { turn } of keptTurns(w)) if (top === undefined || turn > top) top = turn;
  return top;
}

/** @internal Moves the window up to `turn`, forgetting the turns that fall out of it. */
export function advance(w: MemoryWindow, turn: number): void {
  if (w.horizon !== undefined && turn <= w.horizon) return;
  w.horizon = turn;
  const oldest = turn - w.keepTurns;
  dropTurns(w, oldest, Number.POSITIVE_INFINITY);
}

/**
 * @internal Forgets the turns at or before `atMost` and those after `after`, keeping the others in
 * order (bounds, not a predicate: the window advances at every turn and makes no function for it).
 */
export function dropTurns(w: MemoryWindow, atMost: number, after: number): void {
  const { slots, kept } = w;
  let left = 0;
  for (let i = 0; i < kept; i++) {
    const memory = slots[i] as TurnMemory;
    if (memory.turn > atMost && memory.turn <= after) {
      if (left !== i) slots[left] = memory;
      left++;
      continue;
    }
    w.count -= memory.count;
    w.bytes -= memory.bytes;
  }
  if (left === kept) return;
  for (let i = left; i < kept; i++) slots[i] = undefined;
  w.kept = left;
}

function append(w: MemoryWindow, memory: TurnMemory): void {
  if (w.kept < w.slots.length) w.slots[w.kept] = memory;
  else w.slots.push(memory);
  w.kept++;
}

/** @internal Remembers `entry` under `id` (`size`: what it counts, `copy`: its snapshot copy, when known). */
export function put(
  w: MemoryWindow,
  turn: number,
  id: string,
  settled: Settled,
  content: CallContent,
  batch: number,
  size: number,
  exact: boolean,
  copy?: RememberedCall,
): void {
  advance(w, turn);
  if (turn <= (w.horizon as number) - w.keepTurns) return; // out of the window (a snapshot's old turn)
  const kept: Entry = { settled, content, size, exact, batch, copy };
  let memory = find(w, turn);
  if (memory === undefined) {
    memory = new TurnMemory(turn, id, kept);
    append(w, memory);
  } else {
    const previous = memory.get(id);
    if (previous !== undefined) {
      w.count--;
      w.bytes -= previous.size;
    }
    memory.set(id, kept);
  }
  if (copy !== undefined) w.copies.set(copy, kept);
  if (settled.ran) {
    if (memory.ranBatch === undefined) memory.ranBatch = batch;
    else if (memory.ranBatch !== batch) memory.ranBatch = MIXED;
    const text = memory.byContent === undefined ? undefined : content.text;
    if (text !== undefined && !memory.byContent?.has(text)) memory.byContent?.set(text, id);
  }
  w.count++;
  w.bytes += size;
}

/** @internal Measures exactly what every kept entry counts (once each), instead of its upper bound. */
export function tighten(w: MemoryWindow): void {
  for (let i = 0; i < w.kept; i++) {
    for (const [id, entry] of (w.slots[i] as TurnMemory).entries()) {
      if (entry.exact) continue;
      const size = sizeOf(id, entry.settled, entry.content, true);
      w.bytes += size - entry.size;
      entry.size = size;
      entry.exact = true;
    }
  }
}

/** @internal The first call of `turn` with `content` that ran, when it came in another batch than `batch`. */
export function sameContent(
  w: MemoryWindow,
  turn: number,
  content: CallContent,
  batch: number,
): { readonly id: string; readonly entry: Remembered } | undefined {
  const memory = find(w, turn);
  // Nothing ran in another batch of this turn: no text needs writing to know there is no match.
  if (memory === undefined || memory.ranBatch === undefined) return undefined;
  if (memory.byContent === undefined && memory.ranBatch === batch) return undefined;
  const id = contentIndex(memory).get(content.text);
  const entry = id === undefined ? undefined : memory.get(id);
  return entry === undefined || id === undefined || entry.batch === batch ? undefined : { id, entry };
}

/** @internal The kept turns as a snapshot holds them: frozen copies, each written once. */
export function snapshotOf(w: MemoryWindow): GateMemorySnapshot['turns'] {
  return keptTurns(w).map((memory) => ({
    turn: memory.turn,
    calls: memory.entries().map(([id, entry]) => {
      if (entry.copy !== undefined) return entry.copy; // in `copies` since it was written or put back
      const copy = frozenCopy(id, entry);
      w.copies.set(copy, entry);
      return copy;
    }),
  }));
}

/** @internal Replaces the kept turns with a snapshot's; one past the caps is refused, the window left as it was. */
export function loadSnapshot(w: MemoryWindow, snapshot: GateMemorySnapshot['turns']): void {
  const previous = keptTurns(w);
  const before = { count: w.count, bytes: w.bytes, horizon: w.horizon };
  dropTurns(w, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  w.count = 0;
  w.bytes = 0;
  w.horizon = undefined;
  for (const { turn, calls } of snapshot) {
    for (const call of calls) {
      // A copy this memory wrote is not read again: its entry is reused as it was.
      const own = w.copies.get(call);
      if (own !== undefined) put(w, turn, call.id, own.settled, own.content, -1, own.size, own.exact, call);
      else {
        const settled = toSettled(call);
        const content = contentOfCall(call);
        put(w, turn, call.id, settled, content, -1, sizeOf(call.id, settled, content, true), true);
      }
    }
  }
  if (w.count > w.maxCalls || w.bytes > w.maxBytes) {
    dropTurns(w, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    for (const memory of previous) {
      append(w, memory);
      // the copies the refused snapshot shared point back to the entries kept
      for (const [, entry] of memory.entries()) if (entry.copy !== undefined) w.copies.set(entry.copy, entry);
    }
    ({ count: w.count, bytes: w.bytes, horizon: w.horizon } = before);
    throw new ToolsError('invalid_snapshot', 'The snapshot remembers more calls than the gate may keep', {
      details: { maxRememberedCalls: w.maxCalls, maxRememberedBytes: w.maxBytes },
    });
  }
}
