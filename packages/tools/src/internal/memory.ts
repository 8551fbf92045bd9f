import { canonicalJson, type JsonValue, type Store } from '@parley/core';
import { ToolsError } from '../errors.js';
import { checkRememberedCall, type GateMemorySnapshot, type RememberedCall } from '../snapshot.js';
import type { CallBase, Settled } from './runtime.js';

/** A remembered call: its outcome and the content it was proposed with. */
export interface Remembered {
  readonly settled: Settled;
  readonly content: string;
}

/** What the store holds per call: a claim taken before the executor ran, or the outcome after. */
type StoredCall =
  | {
      readonly state: 'executing';
      readonly tool: string;
      readonly startedAt: number;
      readonly content: string;
    }
  | ({ readonly state: 'done' } & RememberedCall);

export type StoredLookup =
  | { readonly kind: 'none' }
  | ({ readonly kind: 'done' } & Remembered)
  /** A claim: the call started and has no recorded outcome (`content` absent in old claims). */
  | { readonly kind: 'executing'; readonly tool: string; readonly content: string | undefined }
  /** Not an entry this gate could have written for this turn and id. */
  | { readonly kind: 'corrupt'; readonly error: unknown };

/** The once-per-turn memory of a gate: a bounded local map by turn, optionally backed by a core `Store`. */
export interface CallMemory {
  local(turn: number, id: string): Remembered | undefined;
  /** Whether `turn` is older than the kept window (its calls are forgotten, so none may run). */
  stale(turn: number): boolean;
  /**
   * Moves the window to `turn` and reserves room for a call that may run; false when the caps would
   * be passed (a result may take the bytes past the cap once: the calls after it are refused).
   */
  reserve(turn: number, bytes: number): boolean;
  unreserve(bytes: number): void;
  /** Remembers a call; `batch` tells the batch it came in (`-1`, or omitted, for an earlier life). */
  remember(turn: number, id: string, entry: Remembered, batch?: number): void;
  /**
   * The first call of `turn` with this content whose executor ran, when it came in another batch
   * than `batch` (in one batch, equal calls under distinct ids are distinct calls).
   */
  sameContent(
    turn: number,
    content: string,
    batch: number,
  ): { readonly id: string; readonly entry: Remembered } | undefined;
  /** With a store only: reads it after a local miss. */
  stored(turn: number, id: string): Promise<StoredLookup>;
  /** Claims a call before its executor runs; `undefined` when claimed, else what the store holds. */
  claim(turn: number, base: CallBase, now: number): Promise<StoredLookup | undefined>;
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
}

interface Entry extends Remembered {
  readonly size: number;
  readonly batch: number;
}

/** One remembered turn: its calls by id, and the first id that ran per content. */
interface TurnMemory {
  readonly calls: Map<string, Entry>;
  readonly byContent: Map<string, string>;
}

export function createCallMemory(options: MemoryOptions): CallMemory {
  const { keepTurns, maxCalls, maxBytes, store, prefix, ttlMs } = options;
  const turns = new Map<number, TurnMemory>();
  const claims = new Map<string, number>();
  let count = 0;
  let bytes = 0;
  /** The latest turn the memory moved to: turns at or below `horizon - keepTurns` are forgotten. */
  let horizon: number | undefined;
  let reservedCalls = 0;
  let reservedBytes = 0;
  const write = ttlMs === undefined ? undefined : { ttlMs };
  const keyOf = (turn: number, id: string): string => `${prefix}${turn}:${id}`;

  /** The store; `stored`, `claim` and `release` are called only when `persistent`. */
  const backing = (): Store => store as Store;

  async function read(turn: number, id: string): Promise<StoredLookup> {
    const value = await backing().get(keyOf(turn, id));
    return value === undefined ? { kind: 'none' } : fromStored(value, turn, id);
  }

  const latest = (): number | undefined => {
    let top: number | undefined;
    for (const turn of turns.keys()) if (top === undefined || turn > top) top = turn;
    return top;
  };

  /** Moves the window up to `turn`, forgetting the turns that fall out of it. */
  function advance(turn: number): void {
    if (horizon !== undefined && turn <= horizon) return;
    horizon = turn;
    for (const kept of [...turns.keys()]) if (kept <= turn - keepTurns) drop(kept);
  }

  function drop(turn: number): void {
    const memory = turns.get(turn);
    if (memory === undefined) return;
    for (const entry of memory.calls.values()) {
      count--;
      bytes -= entry.size;
    }
    turns.delete(turn);
  }

  function put(turn: number, id: string, entry: Remembered, batch = -1): void {
    advance(turn);
    if (turn <= (horizon as number) - keepTurns) return; // out of the window (a snapshot's old turn)
    let memory = turns.get(turn);
    if (memory === undefined) {
      memory = { calls: new Map(), byContent: new Map() };
      turns.set(turn, memory);
    }
    const previous = memory.calls.get(id);
    if (previous !== undefined) {
      count--;
      bytes -= previous.size;
    }
    const size = sizeOf(id, entry);
    memory.calls.set(id, { ...entry, size, batch });
    if (entry.settled.ran && !memory.byContent.has(entry.content)) memory.byContent.set(entry.content, id);
    count++;
    bytes += size;
  }

  return {
    persistent: store !== undefined,
    local: (turn, id) => turns.get(turn)?.calls.get(id),
    sameContent(turn, content, batch) {
      const memory = turns.get(turn);
      const id = memory?.byContent.get(content);
      const entry = id === undefined ? undefined : memory?.calls.get(id);
      return entry === undefined || id === undefined || entry.batch === batch ? undefined : { id, entry };
    },
    stale: (turn) => horizon !== undefined && turn <= horizon - keepTurns,
    reserve(turn, size) {
      advance(turn);
      if (count + reservedCalls + 1 > maxCalls || bytes + reservedBytes + size > maxBytes) return false;
      reservedCalls++;
      reservedBytes += size;
      return true;
    },
    unreserve(size) {
      reservedCalls--;
      reservedBytes -= size;
    },
    remember: put,
    stored: (turn, id) => read(turn, id),
    async claim(turn, base, now) {
      const key = keyOf(turn, base.id);
      const claim: StoredCall = {
        state: 'executing',
        tool: base.tool,
        startedAt: now,
        content: base.content,
      };
      const result = await backing().compareAndSet(key, null, claim, write);
      if (result.ok) {
        claims.set(key, result.version);
        return undefined;
      }
      return read(turn, base.id); // another gate on the same store took it first
    },
    async release(turn, base, settled) {
      const key = keyOf(turn, base.id);
      const version = claims.get(key) as number; // released only after this gate's claim succeeded
      claims.delete(key);
      if (!settled.ran) {
        await backing().compareAndSet(key, version, undefined); // nothing ran: the call may run later
        return;
      }
      const done: StoredCall = { state: 'done', ...toRemembered(base.id, settled), content: base.content };
      // Results are the host's values: a store rejects one that is not JSON, leaving the claim.
      await backing().compareAndSet(key, version, done as unknown as JsonValue, write);
    },
    toSnapshot: () =>
      [...turns].map(([turn, memory]) => ({
        turn,
        calls: [...memory.calls].map(([id, entry]) => ({
          ...toRemembered(id, entry.settled),
          content: entry.content,
        })),
      })),
    load(snapshot) {
      const previous = [...turns];
      const before = { count, bytes, horizon };
      turns.clear();
      count = 0;
      bytes = 0;
      horizon = undefined;
      for (const { turn, calls } of snapshot) {
        for (const call of calls)
          put(turn, call.id, { settled: toSettled(call), content: contentOfCall(call) });
      }
      if (count > maxCalls || bytes > maxBytes) {
        turns.clear();
        for (const [turn, memory] of previous) turns.set(turn, memory);
        ({ count, bytes, horizon } = before);
        throw new ToolsError('invalid_snapshot', 'The snapshot remembers more calls than the gate may keep', {
          details: { maxRememberedCalls: maxCalls, maxRememberedBytes: maxBytes },
        });
      }
    },
    async forgetAfter(turn) {
      for (const kept of [...turns.keys()]) if (turn === undefined || kept > turn) drop(kept);
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

/** `canonicalJson({ tool, args })`: the content that makes two proposals the same call. */
export function contentOf(tool: string, args: unknown): string {
  return canonicalJson({ tool, args });
}

/** The UTF-8 length of a text, without encoding it (a high surrogate and what follows count 4). */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

export function toRemembered(id: string, settled: Settled): RememberedCall {
  return {
    id,
    record: settled.record,
    ...(settled.executed === undefined ? {} : { executed: settled.executed }),
    ...(settled.failed === undefined ? {} : { failed: settled.failed }),
  };
}

export function toSettled(call: RememberedCall): Settled {
  return {
    record: call.record,
    ...(call.executed === undefined ? {} : { executed: call.executed }),
    ...(call.failed === undefined ? {} : { failed: call.failed }),
    ran: true,
  };
}

/** What an entry counts against `maxRememberedBytes`: its id, its content and its result as JSON. */
function sizeOf(id: string, entry: Remembered): number {
  let result = 0;
  const executed = entry.settled.executed;
  if (executed !== undefined && executed.result !== undefined) {
    try {
      result = utf8Length(canonicalJson(executed.result));
    } catch {
      result = 0; // not JSON: kept by reference, not copied (and refused by snapshot() and stores)
    }
  }
  return utf8Length(id) + utf8Length(entry.content) + result;
}

/** The recorded content, or (for records written before it existed) the one of the recorded request. */
function contentOfCall(call: RememberedCall): string {
  return call.content ?? contentOf(call.record.requested.tool, call.record.requested.args);
}

/** A stored entry read back: an outcome or a claim for this turn and id, or `corrupt`. */
function fromStored(value: JsonValue, turn: number, id: string): StoredLookup {
  const stored: Readonly<Record<string, JsonValue>> =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Readonly<Record<string, JsonValue>>)
      : {};
  const { state, tool, content } = stored;
  if (
    state === 'executing' &&
    typeof tool === 'string' &&
    (content === undefined || typeof content === 'string')
  ) {
    return { kind: 'executing', tool, content };
  }
  try {
    const call = checkRememberedCall(state === 'done' ? stored : undefined, 'entry');
    if (call.id === id && call.record.turn === turn) {
      return { kind: 'done', settled: toSettled(call), content: contentOfCall(call) };
    }
  } catch (error) {
    return { kind: 'corrupt', error };
  }
  const error = new ToolsError(
    'invalid_snapshot',
    `The store holds another call's record for "${id}" in turn ${turn}`,
  );
  return { kind: 'corrupt', error };
}
