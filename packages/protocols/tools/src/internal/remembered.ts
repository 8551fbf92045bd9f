import type { JsonValue } from '@parley/core';
import { ToolsError } from '../errors.js';
import { checkRememberedCall, type RememberedCall } from '../snapshot.js';
import { type CallContent, contentFromText, contentOf, utf8Length } from './content.js';
import { jsonBytes } from './json-bytes.js';
import type { Settled } from './runtime.js';

// A remembered call as a snapshot or a store holds it, its content and what it counts against the
// memory's caps.

/** A remembered call: its outcome and the content it was proposed with. */
export interface Remembered {
  readonly settled: Settled;
  readonly content: CallContent;
}

/**
 * What an entry counts against `maxRememberedBytes`: its id, its content and its result as JSON,
 * measured without writing anything; an upper bound unless `exact` (then the exact length).
 */
export function sizeOf(
  id: string,
  settled: Settled,
  callContent: CallContent,
  exact: boolean,
  idBytes?: number,
): number {
  const content = exact ? callContent.bytes : callContent.bound;
  let result = 0;
  const executed = settled.executed;
  // not JSON (-1): kept by reference, not copied (and refused by snapshot() and stores)
  if (executed !== undefined && executed.result !== undefined)
    result = Math.max(0, jsonBytes(executed.result, exact));
  return (idBytes ?? utf8Length(id)) + content + result;
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

/** The recorded content, or (for records written before it existed) the one of the recorded request. */
export function contentOfCall(call: RememberedCall): CallContent {
  const { tool, args } = call.record.requested;
  return contentFromText(tool, args, call.content ?? contentOf(tool, args));
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
