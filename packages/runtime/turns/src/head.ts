// The runner's durable record: the head (the committed present, the open turn, the last settled
// submission and the journal of settled keys), one kernel record checked on read.
import {
  addSettled,
  type Committed,
  findSettled,
  type JournalLimits,
  type JsonValue,
  type RecordCodec,
  readJournal,
  type SettledJournal,
} from '@parley/core';
import type { ToolGateSnapshot } from '@parley/tools';
import { TurnsError } from './errors.js';

/** The turn that holds the runner now (its lease is the head record's kernel lease). */
export interface OpenTurn {
  readonly key: string;
  /** The canonical JSON of the input: a key reused with other content is refused. */
  readonly content: string;
  readonly turnId: string;
  readonly turn: number;
  readonly startedAt: number;
  readonly deadlineAt: number;
}

/** A settled submission, as the head's `last` and its journal keep it. */
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
  readonly turn: number;
  readonly turnId: string;
  readonly state: JsonValue;
  readonly gate: ToolGateSnapshot;
  readonly open: OpenTurn | null;
  readonly last: SettledTurn | null;
  /** Settled submission keys, committed in the same write as the turn that settled them. */
  readonly journal: SettledJournal;
}

/** The head as committed, with the store version its writes compare against. */
export type StoredHead = Committed<Head>;

/** The head record's kind and format (format 2: a kernel record; format 1 heads are refused). */
export const HEAD: RecordCodec<Head> = {
  kind: 'parley.turns.head',
  version: 2,
  decode(data) {
    const ok =
      isRecord(data) &&
      isTurn(data) &&
      isRecord(data['gate']) &&
      'state' in data &&
      (data['open'] === null || isRecord(data['open'])) &&
      (data['last'] === null || isRecord(data['last'])) &&
      readJournal(data['journal'])?.every((entry) => isRecord(entry.result) && isTurn(entry.result)) === true;
    // checked above: the turn fields, the gate object, open, last and the journal; state is the host's JSON
    return ok ? (data as unknown as Head) : undefined;
  },
  encode: (head) => toJson(head),
};

/** The settled submission of `key`: the head's last one, or its journal entry. */
export function settledOf(head: Head, key: string): SettledTurn | undefined {
  if (head.last?.key === key) return head.last;
  const entry = findSettled(head.journal, key);
  if (entry === undefined) return undefined;
  // HEAD.decode checked every journal result: { turnId, turn, record } as this package wrote it
  const { turnId, turn, record } = entry.result as { turnId: string; turn: number; record: JsonValue };
  return { key, content: entry.digest, turnId, turn, record, keyed: true };
}

/** The journal with `settled` added (keyed turns only), entries older than `ttlMs` dropped. */
export function journalWith(
  journal: SettledJournal,
  settled: SettledTurn,
  now: number,
  ttlMs: number,
  limits?: JournalLimits,
): SettledJournal {
  const live = journal.filter((entry) => entry.at + ttlMs > now);
  if (!settled.keyed) return live;
  const { key, content, turnId, turn, record } = settled;
  const added = addSettled(live, { key, digest: content, result: { turnId, turn, record }, at: now }, limits);
  if (added.ok) return added.journal;
  // fail closed: a turn whose key cannot be kept commits nothing (the turn fails)
  throw new TurnsError('turn_failed', `Turn ${turnId}: ${added.message}`, { details: { turnId, key } });
}

export function toJson(value: Head | SettledTurn | OpenTurn): JsonValue {
  // every field is a JSON value by construction (the host's state and records are JSON)
  return value as unknown as JsonValue;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTurn(value: Record<string, unknown>): boolean {
  return typeof value['turn'] === 'number' && typeof value['turnId'] === 'string';
}
