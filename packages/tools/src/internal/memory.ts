import type { JsonValue, Store } from '@parley/core';
import type { GateMemorySnapshot, RememberedCall } from '../snapshot.js';
import type { ToolCallRecord } from '../types.js';
import type { Settled } from './judge.js';

/** A call about to run, as the memory needs it to write its claim or its unknown outcome. */
export interface CallBase {
  readonly id: string;
  readonly tool: string;
  readonly requested: ToolCallRecord['requested'];
}

/** What the store holds per call: a claim taken before the executor ran, or the outcome after. */
type StoredCall =
  | { readonly state: 'executing'; readonly tool: string; readonly startedAt: number }
  | ({ readonly state: 'done' } & RememberedCall);

/** The once-per-turn memory of a gate: a local map by turn, optionally backed by a core `Store`. */
export interface CallMemory {
  local(turn: number, id: string): Settled | undefined;
  remember(turn: number, id: string, settled: Settled): void;
  /** With a store only: reads it after a local miss: a finished outcome, a claim (`executing`), or nothing. */
  stored(turn: number, id: string): Promise<StoredLookup>;
  /** Claims a call before its executor runs; `undefined` when claimed, else what the store holds. */
  claim(turn: number, base: CallBase, now: number): Promise<StoredLookup | undefined>;
  /** Writes the outcome of a claimed call (or drops the claim when the executor did not run). */
  release(turn: number, id: string, settled: Settled): Promise<void>;
  readonly persistent: boolean;
  toSnapshot(): GateMemorySnapshot['turns'];
  load(turns: GateMemorySnapshot['turns']): void;
  forgetAfter(turn: number | undefined): Promise<void>;
}

export type StoredLookup =
  | { readonly kind: 'none' }
  | { readonly kind: 'done'; readonly settled: Settled }
  | { readonly kind: 'executing' };

export interface MemoryOptions {
  readonly keepTurns: number;
  readonly store: Store | undefined;
  readonly prefix: string;
  readonly ttlMs: number | undefined;
}

export function createCallMemory(options: MemoryOptions): CallMemory {
  const { keepTurns, store, prefix, ttlMs } = options;
  const turns = new Map<number, Map<string, Settled>>();
  const claims = new Map<string, number>();
  const write = ttlMs === undefined ? undefined : { ttlMs };
  const keyOf = (turn: number, id: string): string => `${prefix}${turn}:${id}`;

  /** The store; `stored`, `claim` and `release` are called only when `persistent`. */
  const backing = (): Store => store as Store;

  async function read(key: string): Promise<StoredLookup> {
    const value = await backing().get(key);
    if (value === undefined) return { kind: 'none' };
    const settled = fromStored(value);
    return settled === undefined ? { kind: 'executing' } : { kind: 'done', settled };
  }

  return {
    persistent: store !== undefined,
    local: (turn, id) => turns.get(turn)?.get(id),
    remember(turn, id, settled) {
      let memory = turns.get(turn);
      if (memory === undefined) {
        memory = new Map();
        turns.set(turn, memory);
        for (const kept of turns.keys()) if (kept <= turn - keepTurns) turns.delete(kept);
      }
      memory.set(id, settled);
    },
    stored: (turn, id) => read(keyOf(turn, id)),
    async claim(turn, base, now) {
      const key = keyOf(turn, base.id);
      const claim: StoredCall = { state: 'executing', tool: base.tool, startedAt: now };
      const result = await backing().compareAndSet(key, null, claim, write);
      if (result.ok) {
        claims.set(key, result.version);
        return undefined;
      }
      return read(key); // another gate on the same store took it first
    },
    async release(turn, id, settled) {
      const key = keyOf(turn, id);
      const version = claims.get(key) as number; // released only after this gate's claim succeeded
      claims.delete(key);
      if (!settled.ran) {
        await backing().compareAndSet(key, version, undefined); // nothing ran: the call may run later
        return;
      }
      const done: StoredCall = { state: 'done', ...toRemembered(id, settled) };
      // Results are the host's values: a store rejects one that is not JSON, leaving the claim.
      await backing().compareAndSet(key, version, done as unknown as JsonValue, write);
    },
    toSnapshot: () =>
      [...turns].map(([turn, calls]) => ({
        turn,
        calls: [...calls].map(([id, settled]) => toRemembered(id, settled)),
      })),
    load(snapshot) {
      turns.clear();
      for (const { turn, calls } of snapshot) {
        turns.set(turn, new Map(calls.map((call) => [call.id, toSettled(call)])));
      }
    },
    async forgetAfter(turn) {
      for (const kept of [...turns.keys()]) if (turn === undefined || kept > turn) turns.delete(kept);
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

/** A stored outcome, or `undefined` for a claim or anything not shaped like an outcome. */
function fromStored(value: JsonValue): Settled | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const stored = value as Record<string, unknown>;
  if (stored['state'] !== 'done' || typeof stored['id'] !== 'string') return undefined;
  const record = stored['record'];
  if (typeof record !== 'object' || record === null) return undefined;
  const executed = stored['executed'];
  const failed = stored['failed'];
  if ((typeof executed !== 'object' || executed === null) && (typeof failed !== 'object' || failed === null))
    return undefined;
  // Written by `release` from a Settled; its parts went through JSON unchanged.
  return toSettled(stored as unknown as RememberedCall);
}
