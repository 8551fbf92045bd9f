import type { Clock, IdGenerator, Store, Unsubscribe } from '@parley/core';
import type { CorrelateRefusalCode } from './errors.js';
import type { CorrelateMessage } from './messages.js';
import type { Protocol } from './protocol.js';
import type { ReceiveResult, CorrelateRefusal } from './receive-result.js';
import type {
  ListFilter,
  RequestProgressOptions,
  Reply,
  RequestOptions,
  RequestPromise,
  TrackedRequest,
  WaitForOptions,
} from './request-types.js';

/**
 * The events of a correlator. Each carries plain data.
 *
 * @example
 * ```ts
 * import type { CorrelatorEvents } from '@parley/correlate';
 *
 * const onRefused = (event: CorrelatorEvents['refused']): void => console.log(event.code);
 * ```
 */
export interface CorrelatorEvents {
  /** An incoming request was accepted; answer it with `respond`. */
  request: { readonly request: TrackedRequest };
  /** A request reached a final state; `remote` when another instance on the store settled it. */
  settled: { readonly request: TrackedRequest; readonly remote: boolean };
  /** An incoming message was refused (and counted); nothing was settled or started. */
  refused: CorrelateRefusal;
  /** A responder's progress note moved a deadline. */
  progress: {
    readonly requestId: string;
    readonly deadlineAt: number;
    readonly waitingOnHuman: boolean;
    readonly note?: string | undefined;
  };
  /** Something failed in the background: the store, a handler or the transport. */
  error: {
    readonly code: 'store_failed' | 'handler_failed' | 'send_failed';
    readonly requestId?: string;
    readonly error: unknown;
  };
}

/**
 * Counters of a correlator: what is pending and settled now, and every refusal so far by code.
 *
 * @example
 * ```ts
 * import type { CorrelatorStats } from '@parley/correlate';
 *
 * const stats: CorrelatorStats = { pending: 1, incoming: 0, settled: 3, refused: { late: 1 } };
 * ```
 */
export interface CorrelatorStats {
  /** Requests this correlator sent that wait for a reply. */
  readonly pending: number;
  /** Requests it received that wait for its answer. */
  readonly incoming: number;
  /** Settled records kept for audit. */
  readonly settled: number;
  readonly refused: Readonly<Partial<Record<CorrelateRefusalCode, number>>>;
}

/**
 * Options of `createCorrelator`.
 *
 * @example
 * ```ts
 * import { shutdownProtocol, type CorrelatorOptions } from '@parley/correlate';
 *
 * const options: CorrelatorOptions = { self: 'lead', protocols: [shutdownProtocol], send: (m) => console.log(m.kind) };
 * ```
 */
export interface CorrelatorOptions {
  /** This party's name: `from` of what it sends, and the `to` it accepts. */
  readonly self: string;
  /** Every protocol it may send or receive. */
  readonly protocols: readonly Protocol[];
  /** Hands an outgoing message to the transport. Synchronous; a throw fails the request with `send_failed`. */
  readonly send: (message: CorrelateMessage) => void;
  readonly clock?: Clock;
  /** Request ids; compact unique ids by default (a random instance prefix and a counter). */
  readonly generateId?: IdGenerator;
  /** Pending requests are written here and survive a restart; memory only when omitted. */
  readonly store?: Store;
  /** Prefix of this correlator's keys in the store; `correlate:<self>:` by default. */
  readonly keyPrefix?: string;
  readonly timeoutMs?: number;
  readonly humanTimeoutMs?: number;
  readonly maxTotalMs?: number;
  /** Pending requests allowed per direction; past it `request` fails with `too_many_pending`. */
  readonly maxPending?: number;
  /** How long settled records stay visible for audit (0: dropped at once). */
  readonly retainSettledMs?: number;
  /** The most settled records kept per direction; the oldest go first. */
  readonly maxSettled?: number;
}

/**
 * A request/response correlator for one party: it sends requests with fresh ids and tracks them
 * until a reply, a deadline or a cancellation settles them, and it answers requests from others.
 *
 * @example
 * ```ts
 * import { createCorrelator, shutdownProtocol, type Correlator } from '@parley/correlate';
 *
 * const lead: Correlator = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: () => {} });
 * console.log(lead.stats().pending); // 0
 * lead.close();
 * ```
 */
export interface Correlator {
  readonly self: string;
  /**
   * Sends a request and returns the promise of its reply (approved or rejected); the promise's
   * `id` is the request's id, set before it is sent.
   *
   * @throws CorrelateError (as a rejection) `timeout`, `cancelled`, `closed`, `too_many_pending`,
   * `unknown_protocol`, `invalid_payload`, `send_failed`, `store_failed`.
   */
  request<TName extends string, TRequest, TResponse>(
    protocol: Protocol<TName, TRequest, TResponse>,
    options: RequestOptions<TRequest>,
  ): RequestPromise<Reply<TResponse>>;
  /** Feeds an incoming message from the transport. Never throws and never rejects. */
  receive(message: unknown): Promise<ReceiveResult>;
  /**
   * Answers a request this correlator received.
   *
   * @throws CorrelateError `unknown_request`, `not_pending`, `invalid_response`, `send_failed`, `closed`.
   */
  respond<TResponse>(requestId: string, response: TResponse): TrackedRequest;
  /**
   * Tells the requester the answer is coming (or waits on a person), extending both deadlines.
   *
   * @throws CorrelateError `unknown_request`, `not_pending`, `send_failed`, `closed`.
   */
  progress(requestId: string, options?: RequestProgressOptions): TrackedRequest;
  /** Cancels a pending request by id; resolves false when it was not pending here. */
  cancel(requestId: string, reason?: string): Promise<boolean>;
  /**
   * Waits for the reply to a request this correlator (or, with a store, another instance) sent.
   *
   * @throws CorrelateError (as a rejection) `unknown_request`, `timeout`, `cancelled`, `closed`, `store_failed`.
   */
  waitFor(requestId: string, options?: WaitForOptions): Promise<Reply>;
  /**
   * Runs `handler` whenever this instance settles a request of the protocol; survives restarts
   * when re-registered. It runs after the outcome is committed: a handler that throws or whose
   * promise rejects changes nothing about the request and is reported as an `error` event
   * (`handler_failed`), never as an unhandled rejection.
   */
  handle<TResponse>(
    protocol: Protocol<string, unknown, TResponse> | string,
    handler: (request: TrackedRequest & { readonly response?: TResponse }) => unknown,
  ): Unsubscribe;
  /** Loads pending requests from the store (after a restart); resolves how many it took over. */
  restore(): Promise<number>;
  get(requestId: string): TrackedRequest | undefined;
  list(filter?: ListFilter): TrackedRequest[];
  stats(): CorrelatorStats;
  on<K extends keyof CorrelatorEvents & string>(
    event: K,
    listener: (payload: CorrelatorEvents[K]) => void,
  ): Unsubscribe;
  /** Rejects every local promise with `closed`, clears every timer; durable records stay pending in the store. */
  close(): void;
}
