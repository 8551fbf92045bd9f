import type { RequestState } from '@parley/fsm';

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
 * import type { RequestProgressOptions } from '@parley/correlate';
 *
 * const options: RequestProgressOptions = { note: 'asking the owner', waitingOnHuman: true };
 * ```
 */
export interface RequestProgressOptions {
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
