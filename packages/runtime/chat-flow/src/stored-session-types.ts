import type { Clock, JsonValue, StandardSchemaV1, Store, Unsubscribe } from '@parley/core';
import type { FlowFields, FlowSnapshot, FlowStatus, FlowSubmitResult } from '@parley/fsm';
import type { FlowDraft, FlowRetry, FlowSessionRecord } from './stored-session-record.js';
import type { FlowSessionRefusal, FlowSessionRefusalCode } from './stored-session-refusals.js';

/**
 * Options of {@link createFlowSessionStore}.
 *
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import type { FlowSessionStoreOptions } from '@parley/chat-flow';
 *
 * const clock = createManualClock();
 * const options: FlowSessionStoreOptions<'goal'> = { store: createMemoryStore({ clock }), clock, draftSteps: ['goal'] };
 * ```
 */
export interface FlowSessionStoreOptions<TStep extends string = string> {
  readonly store: Store;
  /** Timestamps, expiry and the waits between retries; the system clock by default. */
  readonly clock?: Clock;
  /** Records live under `keyPrefix + id`; `flow-session:` by default. */
  readonly keyPrefix?: string;
  /** This process's owner id for session leases; unique by default (`createOwnerId('fsm-sessions')`). */
  readonly owner?: string;
  /** Slot-filling steps: a failed answer is kept as a draft and merged into the next one. */
  readonly draftSteps?: readonly TStep[];
  /** Waits between tries of a store write that threw; at most 10 ({@link DEFAULT_SAVE_RETRY_DELAYS_MS}). */
  readonly saveRetryDelaysMs?: readonly number[];
  /** Waits between attempts of `perform`; at most 10 ({@link DEFAULT_EFFECT_RETRY_DELAYS_MS}). */
  readonly effectRetryDelaysMs?: readonly number[];
  /** A session expires this long after its last write; never by default. */
  readonly idleTimeoutMs?: number;
  /** Checks the host's data on resume (a record whose data fails is `corrupt_record`). */
  readonly dataSchema?: StandardSchemaV1;
  /** Most flow history entries kept per session. */
  readonly historyLimit?: number;
  /**
   * How to wait between retries; a timer on `clock` by default. A host on simulated time passes one
   * that moves its own clock (`close()` then takes effect when the wait returns).
   */
  readonly wait?: (ms: number) => Promise<void>;
}

/**
 * The events of a {@link FlowSessionStore}: every refused resume is reported.
 *
 * @example
 * ```ts
 * import type { FlowSessionStoreEvents } from '@parley/chat-flow';
 *
 * const report = (e: FlowSessionStoreEvents['refused']) => console.log(e.id, e.code, e.message);
 * ```
 */
export interface FlowSessionStoreEvents {
  refused: {
    id: string;
    key: string;
    code: FlowSessionRefusalCode;
    message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    reason: string;
    at: number;
  };
}

/**
 * The events of a {@link StoredFlowSession}, emitted after the store answered.
 *
 * @example
 * ```ts
 * import type { StoredFlowSessionEvents } from '@parley/chat-flow';
 *
 * const log = (e: StoredFlowSessionEvents['save-failed']) => console.log(`try ${e.attempt}: ${e.message}`);
 * ```
 */
export interface StoredFlowSessionEvents<TStep extends string = string, TContext = unknown> {
  saved: { id: string; version: number; at: number };
  /** A submission (also each attempt of `perform`) was written; `result` is the flow's verdict. */
  submitted: { id: string; version: number; result: FlowSubmitResult<TStep, TContext> };
  /** One write threw; `willRetry` says whether another try follows. */
  'save-failed': {
    id: string;
    attempt: number;
    /** Why, in words for a person or a log. */
    message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    reason: string;
    willRetry: boolean;
    at: number;
  };
  /** An effect attempt failed and the next is stored as due at `dueAt`. */
  'retry-scheduled': { id: string; step: string; attempts: number; dueAt: number };
  refused: {
    id: string;
    code: FlowSessionRefusalCode;
    message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    reason: string;
    at: number;
  };
}

/**
 * A submission's outcome: committed to the store with the flow's verdict, or refused.
 *
 * @example
 * ```ts
 * import type { StoredSubmitResult } from '@parley/chat-flow';
 *
 * const say = (r: StoredSubmitResult) => (r.ok ? (r.result.ok ? 'moved on' : r.result.code) : `not saved: ${r.code}`);
 * ```
 */
export type StoredSubmitResult<TStep extends string = string, TContext = unknown> =
  | { readonly ok: true; readonly version: number; readonly result: FlowSubmitResult<TStep, TContext> }
  | FlowSessionRefusal;

/**
 * A data update's outcome: the new store version, or refused.
 *
 * @example
 * ```ts
 * import type { FlowSaveResult } from '@parley/chat-flow';
 *
 * const version = (r: FlowSaveResult) => (r.ok ? r.version : undefined);
 * ```
 */
export type FlowSaveResult = { readonly ok: true; readonly version: number } | FlowSessionRefusal;

/**
 * What `perform` ends with: the effect's fields completed the step, the retries ran out (the flow
 * keeps its mark, e.g. `close_pending`, so a later `perform` tries again), or a refusal.
 *
 * @example
 * ```ts
 * import type { FlowEffectResult } from '@parley/chat-flow';
 *
 * const pending = (r: FlowEffectResult) => !r.ok && r.code === 'retries_exhausted';
 * ```
 */
export type FlowEffectResult<TStep extends string = string, TContext = unknown> =
  | { readonly ok: true; readonly attempts: number; readonly result: FlowSubmitResult<TStep, TContext> }
  | {
      readonly ok: false;
      readonly code: 'retries_exhausted';
      readonly attempts: number;
      /** Why the last attempt failed, in words. */
      readonly message: string;
      /** @deprecated Use `message` (the same text); removed in the next minor version. */
      readonly reason: string;
      readonly result: FlowSubmitResult<TStep, TContext>;
    }
  | FlowSessionRefusal;

/**
 * The options of {@link StoredFlowSession.acquire}: the lease's time to live, and whether it may be
 * taken only on the record the handle wrote or read last.
 *
 * @example
 * ```ts
 * import type { FlowAcquireOptions } from '@parley/chat-flow';
 *
 * const again: FlowAcquireOptions = { ttlMs: 60_000, current: true };
 * ```
 */
export interface FlowAcquireOptions {
  readonly ttlMs: number;
  /** Refuse `conflict` (giving the lease back) when another writer changed the record since. */
  readonly current?: boolean;
}

/**
 * One flow session bound to a record in the Store. Every change is a step of the durable kernel
 * decided on the committed record, applied only to the revision this handle last read or wrote,
 * and written with one compare-and-set; it counts only once written, and a lost race is `conflict`.
 *
 * @example
 * ```ts
 * import type { StoredFlowSession } from '@parley/chat-flow';
 *
 * const where = (s: StoredFlowSession<'goal'>) => `${s.id} v${s.version}: ${s.step}`;
 * ```
 */
export interface StoredFlowSession<TStep extends string = string, TContext = unknown, TData = JsonValue> {
  readonly id: string;
  readonly key: string;
  /** The store version of the record this handle wrote or read last. */
  readonly version: number;
  readonly step: TStep | 'done';
  readonly status: FlowStatus;
  readonly done: boolean;
  readonly prompt: string | undefined;
  readonly fields: FlowFields;
  /** The mark of the last failure policy with one (e.g. `close_pending`), or `null`. */
  readonly mark: string | null;
  /** The kept answers of the current step and part, when it is a slot-filling step. */
  readonly draft: FlowDraft<TStep> | null;
  readonly retry: FlowRetry<TStep> | null;
  readonly data: TData;
  readonly expiresAt: number | null;
  /** True once a write lost a race: every later write is refused `stale`. */
  readonly stale: boolean;
  /** The flow snapshot as last written. */
  snapshot(): FlowSnapshot<TStep, TContext>;
  /** The record as stored (plain JSON). */
  record(): FlowSessionRecord<TStep, TContext, TData>;
  /** The draft of the current step and part merged with `fields`: what `submit(fields)` submits. */
  merged(fields: { readonly [field: string]: JsonValue }): { readonly [field: string]: JsonValue };
  /**
   * Merges the draft, submits to the flow and writes the result (and `data`, when given) in one
   * compare-and-set. `transient` fields are submitted but never kept in a draft (a check's verdict).
   * `data` may be a function of the flow's verdict, called before the write: data that depends on
   * whether the answer completed the step (a claim of the step's effect) is written with it.
   * `release: true` gives the handle's lease back in the same write (one write instead of two).
   */
  submit(
    fields: unknown,
    options?: {
      readonly data?: TData | ((result: FlowSubmitResult<TStep, TContext>) => TData);
      readonly transient?: { readonly [field: string]: JsonValue };
      readonly release?: boolean;
    },
  ): Promise<StoredSubmitResult<TStep, TContext>>;
  /** Writes new host data; `release: true` gives the handle's lease back in the same write. */
  update(data: TData, options?: { readonly release?: boolean }): Promise<FlowSaveResult>;
  /**
   * Runs the current step's effect until its fields complete the step: each failed attempt is
   * written with the due time of the next, which waits on the clock (a resumed session waits
   * until the stored `dueAt`). At most `effectRetryDelaysMs.length + 1` attempts per call.
   */
  perform(
    effect: (attempt: number) => unknown | Promise<unknown>,
  ): Promise<FlowEffectResult<TStep, TContext>>;
  /** Adds a listener for a session event; returns a function that removes it. */
  on<K extends keyof StoredFlowSessionEvents & string>(
    event: K,
    listener: (payload: StoredFlowSessionEvents<TStep, TContext>[K]) => void,
  ): Unsubscribe;
  /**
   * Takes the session's lease for `ttlMs` and reads the committed record into the handle (a stale
   * handle is current again): until `release`, or until the lease expires, only this handle writes
   * the session, and each of its writes is fenced (`lease_lost` once another owner took the lease).
   * Refused `lease_held` while another handle's lease is valid. With `current: true` the lease is
   * kept only on the record this handle wrote or read last: when another writer changed it since,
   * the lease is given back and the call refused `conflict` (the handle is then `stale`).
   */
  acquire(options: FlowAcquireOptions): Promise<FlowSaveResult>;
  /** Gives the lease back (best effort: a lease already lost is ignored; it expires anyway). */
  release(): Promise<void>;
  /** Ends a waiting retry (`closed`) and refuses later writes. */
  close(): void;
}

/**
 * The sessions of one flow in one Store: start a new one or resume a stored one.
 *
 * @example
 * ```ts
 * import type { FlowSessionStore } from '@parley/chat-flow';
 *
 * const reopen = async (sessions: FlowSessionStore<'goal'>, id: string) => (await sessions.resume(id)).ok;
 * ```
 */
export interface FlowSessionStore<TStep extends string = string, TContext = unknown, TData = JsonValue> {
  /** Creates the record (refused `exists` when there is one) and returns its handle. */
  start(
    id: string,
    options: { readonly data: TData; readonly context?: TContext },
  ): Promise<
    { readonly ok: true; readonly session: StoredFlowSession<TStep, TContext, TData> } | FlowSessionRefusal
  >;
  /** Reads and checks the record; refusals are also reported as `refused` events. */
  resume(
    id: string,
  ): Promise<
    { readonly ok: true; readonly session: StoredFlowSession<TStep, TContext, TData> } | FlowSessionRefusal
  >;
  /** The key of a session's record. */
  keyOf(id: string): string;
  /** Adds a listener for refusals; returns a function that removes it. */
  on<K extends keyof FlowSessionStoreEvents & string>(
    event: K,
    listener: (payload: FlowSessionStoreEvents[K]) => void,
  ): Unsubscribe;
}
