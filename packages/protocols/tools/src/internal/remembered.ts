import { canonicalJson, type JsonValue } from '@parley/core';
import { ToolsError } from '../errors.js';
import { checkRememberedCall, type RememberedCall } from '../snapshot.js';
import type { Settled } from './runtime.js';

// A remembered call as a snapshot or a store holds it, its content and what it counts against the
// memory's caps.

/** A remembered call: its outcome and the content it was proposed with. */
export interface Remembered {
  readonly settled: Settled;
  readonly content: string;
}

/** What the store holds per call: a claim taken before the executor ran, or the outcome after. */
export type StoredCall =
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

/** `canonicalJson({ tool, args })`: the content that makes two proposals the same call. */
export function contentOf(tool: string, args: unknown): string {
  return canonicalJson({ args, tool }); // written in key order, so canonicalJson takes its JSON.stringify path
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
export function sizeOf(id: string, entry: Remembered): number {
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
export function contentOfCall(call: RememberedCall): string {
  return call.content ?? contentOf(call.record.requested.tool, call.record.requested.args);
}

/** A stored entry read back: an outcome or a claim for this turn and id, or `corrupt`. */
export function fromStored(value: JsonValue, turn: number, id: string): StoredLookup {
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
