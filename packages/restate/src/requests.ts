// Correlated requests as a Restate Virtual Object keyed by request_id: one writer per request,
// the deadline a durable delayed call, every reply judged by @parley/correlate's pure rules.
import { validateAsync } from '@parley/core';
import {
  checkReply,
  DEFAULT_TIMEOUT_MS,
  judgeResponse,
  type Protocol,
  parseMessage,
  type ReceiveResult,
  type RequestMessage,
  requestStep,
} from '@parley/correlate';
import type { RequestEvent } from '@parley/fsm';
import * as restate from '@restatedev/restate-sdk';
import { ParleyRestateError } from './errors.js';
import { type RequestRecord, settleRecord } from './request-record.js';

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
  open(ctx: restate.ObjectContext, input: OpenRequest): Promise<OpenResult>;
  reply(ctx: restate.ObjectContext, input: unknown): Promise<ReceiveResult>;
  expire(ctx: restate.ObjectContext): Promise<RequestRecord | null>;
  cancel(ctx: restate.ObjectContext, input: { readonly by: string }): Promise<CancelResult>;
  watch(ctx: restate.ObjectContext, awakeableId: string): Promise<WatchResult>;
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

const RECORD = 'request';
const WATCHERS = 'watchers';

/**
 * Defines correlated requests (`@parley/correlate` protocols) as a Restate Virtual Object keyed by
 * request_id. `open` stores the request and arms its deadline as a durable delayed call; `reply`
 * judges a response with correlate's own rules (`checkReply`, `judgeResponse`, `requestStep`):
 * unknown, wrong-sender, other-protocol, late, duplicate and invalid responses are refused as data
 * and leave the request as it was; `cancel` cancels it; `get` reads it; `watch` registers an
 * awakeable resolved when it settles (use {@link awaitRequest}). Bind it to a Restate endpoint.
 *
 * @throws ParleyRestateError `invalid_options` for an empty name, no protocols, two protocols with
 * one name, or a `maxWatchers` that is not a positive integer.
 * @example
 * ```ts
 * import { shutdownProtocol } from '@parley/correlate';
 * import { defineRequests } from '@parley/restate';
 *
 * const requests = defineRequests({ name: 'requests', protocols: [shutdownProtocol] });
 * console.log(requests.name); // requests
 * ```
 */
export function defineRequests<TName extends string>(options: RequestsOptions<TName>): RequestsObject<TName> {
  const protocols = protocolMap(options);
  const maxWatchers = options.maxWatchers ?? DEFAULT_MAX_WATCHERS;
  if (!Number.isInteger(maxWatchers) || maxWatchers < 1) {
    throw new ParleyRestateError('invalid_options', 'maxWatchers must be a positive integer');
  }
  const name = options.name;

  /** Settles the stored record with the pure step and wakes every waiter; the step decides, not the caller. */
  async function settle(
    ctx: restate.ObjectContext,
    record: RequestRecord,
    event: RequestEvent,
    now: number,
    own?: { readonly response?: unknown; readonly reason?: string },
  ): Promise<RequestRecord | undefined> {
    const next = requestStep(record.state, record.deadlineAt, event, now);
    if (next === undefined) return undefined;
    const settled = settleRecord(record, next.to, now, next.event === event ? own : undefined);
    ctx.set(RECORD, settled);
    for (const id of (await ctx.get<string[]>(WATCHERS)) ?? []) ctx.resolveAwakeable(id, settled);
    ctx.clear(WATCHERS);
    return settled;
  }

  const handlers: RequestsHandlers = {
    open: async (ctx: restate.ObjectContext, input: OpenRequest): Promise<OpenResult> => {
      if ((await ctx.get<RequestRecord>(RECORD)) !== null) {
        return { ok: false, code: 'duplicate_request', message: `Request "${ctx.key}" exists already` };
      }
      const shape = openShape(input);
      if (shape !== undefined) return { ok: false, code: 'malformed', message: shape };
      const protocol = protocols.get(input.protocol);
      if (protocol === undefined) {
        return { ok: false, code: 'unknown_protocol', message: `No protocol "${input.protocol}"` };
      }
      const payload = await validateAsync(protocol.request, input.payload);
      if (!payload.ok) {
        const text = `The payload does not match the ${protocol.name} schema`;
        return { ok: false, code: 'invalid_payload', message: text };
      }
      const timeoutMs = input.timeoutMs ?? protocol.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const now = await ctx.date.now();
      const record: RequestRecord = {
        id: ctx.key,
        protocol: protocol.name,
        from: input.from,
        to: input.to,
        state: 'pending',
        payload: payload.value,
        createdAt: now,
        deadlineAt: now + timeoutMs,
      };
      ctx.set(RECORD, record);
      // The deadline is a durable timer: Restate calls `expire` once it is due, across restarts.
      ctx.genericSend({
        service: name,
        method: 'expire',
        key: ctx.key,
        parameter: null,
        inputSerde: restate.serde.json,
        delay: timeoutMs,
      });
      const message: RequestMessage = {
        kind: 'request',
        request_id: record.id,
        protocol: record.protocol,
        from: record.from,
        to: record.to,
        payload: record.payload,
        deadline_at: record.deadlineAt,
      };
      return { ok: true, message };
    },

    reply: async (ctx: restate.ObjectContext, input: unknown): Promise<ReceiveResult> => {
      const message = parseMessage(input);
      if (typeof message === 'string') return { ok: false, code: 'malformed', message };
      if (message.kind !== 'response') {
        const text = `Only responses settle a request on Restate, not a ${message.kind}`;
        return { ok: false, code: 'malformed', requestId: message.request_id, message: text };
      }
      const about = {
        requestId: message.request_id,
        kind: message.kind,
        from: message.from,
        protocol: message.protocol,
      };
      if (message.request_id !== ctx.key) {
        const text = `The reply names request "${message.request_id}" but was sent to "${ctx.key}"`;
        return { ok: false, code: 'unknown_request', ...about, message: text };
      }
      const record = (await ctx.get<RequestRecord>(RECORD)) ?? undefined;
      const now = await ctx.date.now();
      const checked = checkReply(record, message, now);
      if (!checked.ok) {
        if (checked.expire && record !== undefined) await settle(ctx, record, 'expire', now);
        const { ok: _ok, expire: _expire, ...refusal } = checked;
        return { ok: false, ...about, ...refusal };
      }
      const target = checked.target;
      const protocol = protocols.get(target.protocol);
      /* v8 ignore next 4 -- a record names a protocol it was opened with; a redeploy without it lands here */
      if (protocol === undefined) {
        const text = `No protocol "${target.protocol}" on this deployment`;
        return { ok: false, code: 'unknown_protocol', ...about, state: target.state, message: text };
      }
      const verdict = await judgeResponse(protocol, target.id, message.response);
      if (!verdict.ok) return { ...about, ...verdict, state: target.state };
      const settled = await settle(ctx, target, verdict.event, now, verdict);
      /* v8 ignore next -- checkReply passed a pending record within its deadline, so the step applies */
      const state = settled?.state ?? target.state;
      return { ok: true, kind: 'response', requestId: target.id, state };
    },

    expire: restate.handlers.object.exclusive(
      { ingressPrivate: true },
      async (ctx: restate.ObjectContext): Promise<RequestRecord | null> => {
        const record = await ctx.get<RequestRecord>(RECORD);
        if (record === null || record.state !== 'pending') return record;
        const now = await ctx.date.now();
        // Not due (a clock that stepped back): wait again for what is left; the stored deadline decides.
        if (now < record.deadlineAt) {
          ctx.genericSend({
            service: name,
            method: 'expire',
            key: ctx.key,
            parameter: null,
            inputSerde: restate.serde.json,
            delay: record.deadlineAt - now,
          });
          return record;
        }
        return (await settle(ctx, record, 'expire', now)) ?? record;
      },
    ),

    cancel: async (ctx: restate.ObjectContext, input: { readonly by: string }): Promise<CancelResult> => {
      const record = await ctx.get<RequestRecord>(RECORD);
      if (record === null) return { ok: false, code: 'unknown_request', message: `No request "${ctx.key}"` };
      if (input?.by !== record.from) {
        const text = `Request "${record.id}" was sent by "${record.from}"; only it may cancel it`;
        return { ok: false, code: 'wrong_sender', message: text };
      }
      const settled = await settle(ctx, record, 'cancel', await ctx.date.now());
      if (settled === undefined) {
        return {
          ok: false,
          code: 'not_pending',
          message: `Request "${record.id}" is ${record.state} already`,
        };
      }
      return { ok: true, record: settled };
    },

    watch: restate.handlers.object.exclusive(
      { ingressPrivate: true },
      async (ctx: restate.ObjectContext, awakeableId: string): Promise<WatchResult> => {
        const record = await ctx.get<RequestRecord>(RECORD);
        if (record === null)
          return { ok: false, code: 'unknown_request', message: `No request "${ctx.key}"` };
        if (record.state !== 'pending') return { ok: true, watching: false, record };
        const watchers = (await ctx.get<string[]>(WATCHERS)) ?? [];
        if (watchers.length >= maxWatchers) {
          const text = `Request "${ctx.key}" has ${maxWatchers} waiters already`;
          return { ok: false, code: 'too_many_watchers', message: text };
        }
        ctx.set(WATCHERS, [...watchers, awakeableId]);
        return { ok: true, watching: true };
      },
    ),

    get: restate.handlers.object.shared(
      async (ctx: restate.ObjectSharedContext): Promise<RequestRecord | null> =>
        ctx.get<RequestRecord>(RECORD),
    ),
  };
  return restate.object({ name: options.name, handlers });
}

function protocolMap(options: RequestsOptions<string>): ReadonlyMap<string, Protocol> {
  if (typeof options.name !== 'string' || options.name.length === 0) {
    throw new ParleyRestateError('invalid_options', 'name must be a non-empty string');
  }
  if (!Array.isArray(options.protocols) || options.protocols.length === 0) {
    throw new ParleyRestateError('invalid_options', 'protocols must list at least one protocol');
  }
  const map = new Map<string, Protocol>();
  for (const protocol of options.protocols) {
    if (map.has(protocol.name)) {
      throw new ParleyRestateError('invalid_options', `Two protocols are named "${protocol.name}"`);
    }
    map.set(protocol.name, protocol);
  }
  return map;
}

/** Why an `open` input is not one (text), or undefined when its shape is right. */
function openShape(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return 'open takes an object';
  const o = input as Record<string, unknown>;
  for (const field of ['protocol', 'from', 'to'] as const) {
    const value = o[field];
    if (typeof value !== 'string' || value.length === 0) return `"${field}" must be a non-empty string`;
  }
  const timeoutMs = o.timeoutMs;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1)) {
    return '"timeoutMs" must be a positive integer';
  }
  return undefined;
}
