import { parseJson, stringifyJson } from '@parley/core';
import { ToolsError } from '../errors.js';
import type { RememberedCall } from '../snapshot.js';
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

/** One remembered turn: its calls by id, and the first id that ran per content. */
export interface TurnMemory {
  readonly turn: number;
  readonly calls: Map<string, Entry>;
  /**
   * The first id that ran per content text, made the first time a call of another batch asks
   * (the texts are written then) and kept up to date after; `undefined` until then.
   */
  byContent: Map<string, string> | undefined;
  /** The batch every call that ran came in; `undefined` before one ran, `MIXED` once several did. */
  ranBatch: number | undefined;
}

/** `ranBatch` once calls of several batches ran. */
export const MIXED = Number.NaN;

/** The first id that ran per content text in `memory`: made (the texts written) on first use, then kept up to date by the memory. */
export function contentIndex(memory: TurnMemory): Map<string, string> {
  if (memory.byContent !== undefined) return memory.byContent;
  const byContent = new Map<string, string>();
  for (const [id, entry] of memory.calls) {
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
    const written = stringifyJson({
      ...toRemembered(id, entry.settled),
      content: entry.content.text,
    } as never);
    copy = deepFreeze(parseJson(written)) as unknown as RememberedCall; // a RememberedCall, as JSON
  } catch (cause) {
    throw new ToolsError('invalid_snapshot', 'The snapshot is not plain JSON', { cause });
  }
  entry.copy = copy;
  return copy;
}

/** Freezes a JSON value all through (a snapshot's remembered call is shared by later snapshots). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
