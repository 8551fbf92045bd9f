// What a requests object takes and answers, and its handlers as Restate clients see them.
import type { Protocol, ReceiveResult, RequestMessage } from '@parley/correlate';
import type * as restate from '@restatedev/restate-sdk';
import type { RequestRecord } from './request-record.js';

/**
 * The most waiters one request keeps by default (each an awakeable id); past it `watch` is refused
 * `too_many_watchers`.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_WATCHERS } from '@parley/restate';
 *
 * console.log(DEFAULT_MAX_WATCHERS); // 64
 * ```
 */
export const DEFAULT_MAX_WATCHERS = 64;

/**
 * What {@link defineRequests} takes.
 *
 * @example
 * ```ts
 * import { shutdownProtocol } from '@parley/correlate';
 * import type { RequestsOptions } from '@parley/restate';
 *
 * const options: RequestsOptions<'requests'> = { name: 'requests', protocols: [shutdownProtocol] };
 * ```
 */
export interface RequestsOptions<TName extends string> {
  /** The Restate service name of the object (its ingress path). */
  readonly name: TName;
  /** The protocols requests may use; a request names one by its `name`. */
  readonly protocols: readonly Protocol[];
  /** How many waiters one request keeps, at most; {@link DEFAULT_MAX_WATCHERS} by default. */
  readonly maxWatchers?: number;
}

/**
 * What the `open` handler takes: a request of one protocol from `from` to `to`. The object's key
 * is its request_id.
 *
 * @example
 * ```ts
 * import type { OpenRequest } from '@parley/restate';
 *
 * const open: OpenRequest = { protocol: 'shutdown', from: 'lead', to: 'alice', payload: { reason: 'done' }, timeoutMs: 60_000 };
 * ```
 */
export interface OpenRequest {
  readonly protocol: string;
  readonly from: string;
  readonly to: string;
  readonly payload: unknown;
  /** The deadline, in ms from now; the protocol's `timeoutMs`, else correlate's default. */
  readonly timeoutMs?: number;
}

/**
 * What `open` answers: the request message to deliver to its responder, or why nothing was opened.
 *
 * @example
 * ```ts
 * import type { OpenResult } from '@parley/restate';
 *
 * const result: OpenResult = { ok: false, code: 'duplicate_request', message: 'Request "r1" exists already' };
 * ```
 */
export type OpenResult =
  | { readonly ok: true; readonly message: RequestMessage }
  | {
      readonly ok: false;
      readonly code: 'duplicate_request' | 'unknown_protocol' | 'invalid_payload' | 'malformed';
      readonly message: string;
    };

/**
 * What `watch` answers: the request is final already (here it is), or the awakeable is resolved
 * when it settles.
 *
 * @example
 * ```ts
 * import type { WatchResult } from '@parley/restate';
 *
 * const result: WatchResult = { ok: true, watching: true };
 * ```
 */
export type WatchResult =
  | { readonly ok: true; readonly watching: true }
  | { readonly ok: true; readonly watching: false; readonly record: RequestRecord }
  | { readonly ok: false; readonly code: 'unknown_request' | 'too_many_watchers'; readonly message: string };

/**
 * What `cancel` answers: the settled record (`cancelled`, or `expired` when its deadline had passed),
 * or why nothing changed. Only the request's sender (`by` = its `from`) may cancel it.
 *
 * @example
 * ```ts
 * import type { CancelResult } from '@parley/restate';
 *
 * const result: CancelResult = { ok: false, code: 'not_pending', message: 'Request "r1" is approved already' };
 * ```
 */
export type CancelResult =
  | { readonly ok: true; readonly record: RequestRecord }
  | {
      readonly ok: false;
      readonly code: 'unknown_request' | 'wrong_sender' | 'not_pending';
      readonly message: string;
    };

/**
 * The handlers of a requests object, as Restate clients see them (`ctx.objectClient`, the ingress).
 *
 * @example
 * ```ts
 * import type { RequestsHandlers } from '@parley/restate';
 *
 * type Reply = RequestsHandlers['reply'];
 * ```
 */
export interface RequestsHandlers {
  /** Stores a new request and arms its deadline. */
  open(ctx: restate.ObjectContext, input: OpenRequest): Promise<OpenResult>;
  /** Judges a response with correlate's rules. */
  reply(ctx: restate.ObjectContext, input: unknown): Promise<ReceiveResult>;
  /** The durable deadline timer (cluster only). */
  expire(ctx: restate.ObjectContext): Promise<RequestRecord | null>;
  /** Cancels a pending request (its sender only). */
  cancel(ctx: restate.ObjectContext, input: { readonly by: string }): Promise<CancelResult>;
  /** Registers a waiter's awakeable (cluster only); use {@link awaitRequest}. */
  watch(ctx: restate.ObjectContext, awakeableId: string): Promise<WatchResult>;
  /** The stored record, or `null`. */
  get(ctx: restate.ObjectSharedContext): Promise<RequestRecord | null>;
}

/**
 * A requests object definition, made by {@link defineRequests}: bind it to a Restate endpoint.
 *
 * @example
 * ```ts
 * import type { RequestsObject } from '@parley/restate';
 *
 * function serviceName(object: RequestsObject<'requests'>): string {
 *   return object.name;
 * }
 * ```
 */
export type RequestsObject<TName extends string> = restate.VirtualObjectDefinition<TName, RequestsHandlers>;
