import type { Clock, JsonValue, Store } from '@parley/core';
import type { LogIo } from './log-io.js';

/** @internal What the checkpoint operations of one `keyPrefix` run with. */
export interface CheckpointsContext<TState> extends LogIo<TState> {
  readonly store: Store;
  readonly clock: Clock;
  readonly prefix: string;
  /** A fresh suffix for a snapshot key, so a writer that loses a race deletes only what it wrote. */
  readonly nonce: () => string;
  /** The cap on kept checkpoints: a fixed one (checked once), or read (and checked) at each call. */
  readonly max: number | (() => Promise<number>);
}

/** @internal States are plain JSON (documented on `Checkpoints`); a Store refuses anything else when it writes. */
export function json(state: unknown): JsonValue {
  return state as JsonValue;
}
