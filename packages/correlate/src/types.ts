import type { Clock, IdGenerator, Store, Unsubscribe, ValidationIssue } from '@parley/core';
import type { RequestState } from '@parley/fsm';
import type { RefusalCode } from './errors.js';
import type { CorrelateMessage } from './messages.js';
import type { Protocol } from './protocol.js';

/** The default deadline of a request: 30 s. @example
 * ```ts
 * import { DEFAULT_TIMEOUT_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_TIMEOUT_MS); // 30000
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The default deadline of a request waiting on a person: 30 min. @example
 * ```ts
 * import { DEFAULT_HUMAN_TIMEOUT_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_HUMAN_TIMEOUT_MS); // 1800000
 * ```
 */
export const DEFAULT_HUMAN_TIMEOUT_MS = 30 * 60_000;
/** The default maximum life of a request, progress included: 24 h. @example
 * ```ts
 * import { DEFAULT_MAX_TOTAL_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_TOTAL_MS); // 86400000
 * ```
 */
export const DEFAULT_MAX_TOTAL_MS = 24 * 60 * 60_000;
/** The default limit of pending requests per direction: 10 000. @example
 * ```ts
 * import { DEFAULT_MAX_PENDING } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_PENDING); // 10000
 * ```
 */
export const DEFAULT_MAX_PENDING = 10_000;
/** How long settled records are kept for audit by default: 5 min. @example
 * ```ts
 * import { DEFAULT_RETAIN_SETTLED_MS } from '@parley/correlate';
 *
 * console.log(DEFAULT_RETAIN_SETTLED_MS); // 300000
 * ```
 */
export const DEFAULT_RETAIN_SETTLED_MS = 5 * 60_000;
/**
 * The most settled records kept in memory by default: 256 per direction (oldest dropped first).
 * Enough to name a late or duplicate reply for a while; a correlator with a `store` also finds
 * older outcomes there. Raise it for a longer in-memory audit trail: each kept record costs a few
 * hundred bytes, and at hundreds of thousands of requests a second a larger window costs time too.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_SETTLED } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_SETTLED); // 256
 * ```
 */
export const DEFAULT_MAX_SETTLED = 256;

/**
 * One tracked request, as `get`, `list` and events report it: plain data, a copy.
 *
 * @example
 * ```ts
 * import type { TrackedRequest } from '@parley/correlate';
 *
 * function line(r: TrackedRequest): string {
 *   return `${r.id} ${r.protocol} ${r.from} → ${r.to}: ${r.state}`;
 * }
 * ```
 */
export interface TrackedRequest {
  readonly id: string;
  readonly protocol: string;
  /** `requester`: this correlator asked; `responder`: it must answer. */
  readonly role: 'requester' | 'responder';
  /** Who asked. */
  readonly from: string;
  /** Who must answer. */
  readonly to: string;
  readonly state: RequestState;
  readonly payload: unknown;
  /** The valid response that settled it (approved or rejected). */
  readonly response?: unknown;
  readonly reason?: string | undefined;
  readonly createdAt: number;
  /** When it expires unless answered or extended (epoch ms). */
  readonly deadlineAt: number;
  /** The latest any progress may push the deadline to (epoch ms). */
  readonly maxDeadlineAt: number;
  readonly waitingOnHuman: boolean;
  readonly settledAt?: number | undefined;
}

/**
 * What a request's promise resolves with: the response that approved or rejected it.
 *
 * @example
 * ```ts
 * import type { Reply } from '@parley/correlate';
 *
 * function report(reply: Reply<{ approve: boolean }>): string {
 *   return reply.approved ? `${reply.from} agreed` : `${reply.from} refused: ${reply.reason ?? ''}`;
 * }
 * ```
 */
export interface Reply<TResponse = unknown> {
  readonly requestId: string;
  readonly protocol: string;
  readonly state: 'approved' | 'rejected';
  readonly approved: boolean;
  readonly response: TResponse;
  readonly reason?: string | undefined;
  /** Who answered. */
  readonly from: string;
  readonly settledAt: number;
}

/**
 * Options of one request.
 *
 * @example
 * ```ts
 * import type { RequestOptions } from '@parley/correlate';
 *
 * const options: RequestOptions<{ plan: string }> = { to: 'lead', payload: { plan: 'Refactor auth' }, waitingOnHuman: true };
 * ```
 */
export interface RequestOptions<TPayload> {
  /** Who must answer. */
  readonly to: string;
  readonly payload: TPayload;
  /** The deadline in ms; the protocol's, then the correlator's default otherwise. */
  readonly timeoutMs?: number;
  /** The answer needs a person: the human deadline applies instead. */
  readonly waitingOnHuman?: boolean;
  /** Aborting it cancels the request (`cancelled`). */
  readonly signal?: AbortSignal;
}

/**
 * What {@link Correlator.request} returns: the promise of the reply, carrying the id of the
 * request it sent as `id`. Use the id to correlate logs, show it to a person, `cancel` or
 * `waitFor` the request, or find it with `get`.
 *
 * @example
 * ```ts
 * import { createCorrelator, shutdownProtocol } from '@parley/correlate';
 *
 * const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: () => {} });
 * const reply = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
 * console.log(lead.get(reply.id)?.state); // pending
 * lead.close();
 * await reply.catch(() => {}); // rejected with closed
 * ```
 */
export type RequestPromise<T> = Promise<T> & {
  /** The request's id (`request_id` on the wire); empty only when `generateId` itself threw. */
  readonly id: string;
};

/**
 * Options of {@link Correlator.waitFor}.
 *
 * @example
 * ```ts
 * import type { WaitForOptions } from '@parley/correlate';
 *
 * const options: WaitForOptions = { signal: AbortSignal.timeout(5_000) };
 * ```
 */
export interface WaitForOptions {
  /** Stops waiting (`cancelled`) without cancelling the request. */
  readonly signal?: AbortSignal;
}

/**
 * Options of {@link Correlator.progress}.
 *
 * @example
 * ```ts
 * import type { ProgressOptions } from '@parley/correlate';
 *
 * const options: ProgressOptions = { note: 'asking the owner', waitingOnHuman: true };
 * ```
 */
export interface ProgressOptions {
  readonly note?: string;
  readonly waitingOnHuman?: boolean;
}

/**
 * Filter of {@link Correlator.list}.
 *
 * @example
 * ```ts
 * import type { ListFilter } from '@parley/correlate';
 *
 * const filter: ListFilter = { role: 'requester', protocol: 'shutdown', state: 'pending' };
 * ```
 */
export interface ListFilter {
  readonly role?: 'requester' | 'responder';
  readonly protocol?: string;
  readonly state?: RequestState;
}

/**
 * What {@link Correlator.receive} returns: what the message did, or why it was refused.
 *
 * @example
 * ```ts
 * import type { ReceiveResult } from '@parley/correlate';
 *
 * function describe(result: ReceiveResult): string {
 *   return result.ok ? `${result.kind} ${result.requestId}` : `refused: ${result.code}`;
 * }
 * ```
 */
export type ReceiveResult =
  | {
      readonly ok: true;
      readonly kind: CorrelateMessage['kind'];
      readonly requestId: string;
      readonly state: RequestState;
    }
  | Refusal;

/**
 * A refused incoming message, as `receive` returns it and the `refused` event carries it.
 *
 * @example
 * ```ts
 * import type { Refusal } from '@parley/correlate';
 *
 * const refusal: Refusal = { ok: false, code: 'unknown_request', requestId: 'nope', message: 'No request "nope"' };
 * ```
 */
export interface Refusal {
  readonly ok: false;
  readonly code: RefusalCode;
  readonly message: string;
  readonly requestId?: string;
  readonly kind?: CorrelateMessage['kind'];
  readonly from?: string;
  readonly protocol?: string;
  /** The state of the request the message named, when it is known. */
  readonly state?: RequestState;
  /** Why the payload or response failed its schema. */
  readonly issues?: readonly ValidationIssue[];
}

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
  refused: Refusal;
  /** A responder's progress note moved a deadline. */
  progress: {
    readonly requestId: string;
    readonly deadlineAt: number;
    readonly waitingOnHuman: boolean;
    readonly note?: string | undefined;
  };
  /** Something failed in the background: the store, a handler or the transport. */
  error: {
    readonly code: 'store_error' | 'handler_failed' | 'send_failed';
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
  readonly refused: Readonly<Partial<Record<RefusalCode, number>>>;
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
   * `unknown_protocol`, `invalid_payload`, `send_failed`, `store_error`.
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
  progress(requestId: string, options?: ProgressOptions): TrackedRequest;
  /** Cancels a pending request by id; resolves false when it was not pending here. */
  cancel(requestId: string, reason?: string): Promise<boolean>;
  /**
   * Waits for the reply to a request this correlator (or, with a store, another instance) sent.
   *
   * @throws CorrelateError (as a rejection) `unknown_request`, `timeout`, `cancelled`, `closed`, `store_error`.
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
