import type { Clock, JsonValue, Store } from '@parley/core';
import type { LogIo } from './log-io.js';
import type { LogRecord } from './log-record.js';

/** @internal What the checkpoint operations of one `keyPrefix` run with. */
export interface CheckpointsContext<TState> extends LogIo<TState> {
  readonly store: Store;
  readonly clock: Clock;
  readonly prefix: string;
  /** The log's key, written into every snapshot so a sweep deletes only this log's. */
  readonly logKey: string;
  /** A fresh suffix for a snapshot key, so a writer that loses a race deletes only what it wrote. */
  readonly nonce: () => string;
  /** The cap on kept checkpoints: a fixed one (checked once), or read (and checked) at each call. */
  readonly max: number | (() => Promise<number>);
}

/** @internal States are plain JSON (documented on `Checkpoints`); a Store refuses anything else when it writes. */
export function json(state: unknown): JsonValue {
  return state as JsonValue;
}

/**
 * @internal A snapshot record: the state with its id, the log it belongs to and the log's `rev` it
 * was written against (what the sweep reads to tell an abandoned snapshot from one in flight).
 */
export function snapshotOf(
  ctx: { readonly logKey: string },
  basis: LogRecord,
  id: string,
  state: unknown,
): JsonValue {
  return { kind: 'parley.checkpoint', id, state: json(state), log: ctx.logKey, basis: basis.rev };
}
