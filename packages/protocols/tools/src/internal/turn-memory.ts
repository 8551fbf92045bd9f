import { ToolsError } from '../errors.js';
import type { RememberedCall } from '../snapshot.js';
import { jsonCopy } from './json-copy.js';
import { type Remembered, toRemembered } from './remembered.js';

// One remembered turn of a gate's call memory and its entries: the index of contents, written
// only when a call of another batch asks for it, and the frozen copy that snapshots share.

/** A remembered call as the memory keeps it. */
export interface Entry extends Remembered {
  /** What it counts against `maxRememberedBytes`: an upper bound until `exact`. */
  size: number;
  exact: boolean;
  readonly batch: number;
  /** The call as snapshots hold it: a frozen JSON copy, written by the first snapshot. */
  copy: RememberedCall | undefined;
}

/**
 * One remembered turn: its calls by id, and the first id that ran per content. Most turns have one
 * call, so the first is kept in the turn itself and a `Map` is made only for a second id: a gate
 * moves to a new turn (and forgets an old one) at every turn, and a `Map` per turn was a third of
 * what a one-call turn allocated.
 */
export class TurnMemory {
  // Declared, not defined: assigned once in the constructor (a defined field is written twice).
  declare readonly turn: number;
  /**
   * The first id that ran per content text, made the first time a call of another batch asks
   * (the texts are written then) and kept up to date after; `undefined` until then.
   */
  declare byContent: Map<string, string> | undefined;
  /** The batch every call that ran came in; `undefined` before one ran, `MIXED` once several did. */
  declare ranBatch: number | undefined;
  declare private readonly firstId: string;
  declare private first: Entry;
  declare private rest: Map<string, Entry> | undefined;

  /** A turn made for the first call it remembers. */
  constructor(turn: number, firstId: string, first: Entry) {
    this.turn = turn;
    this.byContent = undefined;
    this.ranBatch = undefined;
    this.firstId = firstId;
    this.first = first;
    this.rest = undefined;
  }

  /** The entry remembered under `id`. */
  get(id: string): Entry | undefined {
    return id === this.firstId ? this.first : this.rest?.get(id);
  }

  /** Remembers `entry` under `id`, in the place of an entry the id had. */
  set(id: string, entry: Entry): void {
    if (this.firstId === id) this.first = entry;
    else {
      this.rest ??= new Map();
      this.rest.set(id, entry);
    }
  }

  /** How many calls the turn remembers. */
  get count(): number {
    return 1 + (this.rest?.size ?? 0);
  }

  /** What the turn's calls count against `maxRememberedBytes`, summed. */
  get bytes(): number {
    let total = this.first.size;
    if (this.rest !== undefined) for (const entry of this.rest.values()) total += entry.size;
    return total;
  }

  /** The calls by id, in the order they were first remembered. */
  entries(): [string, Entry][] {
    const all: [string, Entry][] = [[this.firstId, this.first]];
    if (this.rest !== undefined) all.push(...this.rest);
    return all;
  }
}

/** `ranBatch` once calls of several batches ran. */
export const MIXED = Number.NaN;

/** The first id that ran per content text in `memory`: made (the texts written) on first use, then kept up to date by the memory. */
export function contentIndex(memory: TurnMemory): Map<string, string> {
  if (memory.byContent !== undefined) return memory.byContent;
  const byContent = new Map<string, string>();
  for (const [id, entry] of memory.entries()) {
    const text = entry.settled.ran ? entry.content.text : undefined;
    if (text !== undefined && !byContent.has(text)) byContent.set(text, id);
  }
  memory.byContent = byContent;
  return byContent;
}

/** The frozen JSON copy of an entry that snapshots share, written once and kept on the entry. */
export function frozenCopy(id: string, entry: Entry): RememberedCall {
  let copy: RememberedCall;
  try {
    const call: RememberedCall = { ...toRemembered(id, entry.settled), content: entry.content.text };
    copy = jsonCopy(call, true) as unknown as RememberedCall; // a RememberedCall, as JSON
  } catch (cause) {
    throw new ToolsError('invalid_snapshot', 'The snapshot is not plain JSON', { cause });
  }
  entry.copy = copy;
  return copy;
}
