// The runner's durable records: the head (the committed present, the open turn, the last settled
// submission) and one journal entry per settled submission key. Both are plain JSON, checked on read.
import type { JsonValue, Store, StoreEntry } from '@parley/core';
import type { ToolGateSnapshot } from '@parley/tools';
import { TurnsError } from './errors.js';

/** The turn that holds the runner now. */
export interface OpenTurn {
  readonly key: string;
  /** The canonical JSON of the input: a key reused with other content is refused. */
  readonly content: string;
  readonly turnId: string;
  readonly turn: number;
  readonly startedAt: number;
  readonly deadlineAt: number;
}

/** A settled submission, as the journal (and the head's `last`) keep it. */
export interface SettledTurn {
  readonly key: string;
  readonly content: string;
  readonly turnId: string;
  readonly turn: number;
  readonly record: JsonValue;
  /** The caller gave the key: the journal keeps it (a turn without one is not deduplicated). */
  readonly keyed: boolean;
}

export interface Head {
  readonly kind: 'parley.turns.head';
  readonly turn: number;
  readonly turnId: string;
  readonly state: JsonValue;
  readonly gate: ToolGateSnapshot;
  readonly open: OpenTurn | null;
  readonly last: SettledTurn | null;
}

export interface StoredHead {
  readonly head: Head;
  readonly version: number;
}

/** Reads the head; `undefined` before `open` ever wrote one. */
export async function readHead(store: Store, key: string): Promise<StoredHead | undefined> {
  const entry: StoreEntry | undefined = await store.getEntry(key);
  if (entry === undefined) return undefined;
  const value = entry.value;
  if (
    !isRecord(value) ||
    value['kind'] !== 'parley.turns.head' ||
    !isTurn(value) ||
    !isRecord(value['gate'])
  ) {
    throw new TurnsError('corrupt_record', `${key} is not a turn runner head`, { details: { key } });
  }
  // checked above: the kind, the turn fields and the gate object; state is the host's JSON
  return { head: value as unknown as Head, version: entry.version };
}

/** Reads a journal entry; anything that is not one counts as absent. */
export async function readSettled(store: Store, key: string): Promise<SettledTurn | undefined> {
  const value = await store.get(key);
  if (!isRecord(value) || value['kind'] !== 'parley.turns.turn' || !isTurn(value)) return undefined;
  if (typeof value['key'] !== 'string' || typeof value['content'] !== 'string') return undefined;
  // checked above: the kind, ids, key and content; the record is the host's JSON
  return value as unknown as SettledTurn;
}

export function toJson(value: Head | SettledTurn | OpenTurn): JsonValue {
  // every field is a JSON value by construction (the host's state and records are JSON)
  return value as unknown as JsonValue;
}

export function journalValue(settled: SettledTurn): JsonValue {
  return { kind: 'parley.turns.turn', ...settled };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTurn(value: Record<string, unknown>): boolean {
  return typeof value['turn'] === 'number' && typeof value['turnId'] === 'string';
}
