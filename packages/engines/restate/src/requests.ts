// Correlated requests as a Restate Virtual Object keyed by request_id: one writer per request,
// the deadline a durable delayed call, every reply judged by @parley/correlate's pure rules.
import { validateAsync } from '@parley/core';
import {
  checkReply,
  DEFAULT_TIMEOUT_MS,
  judgeResponse,
  parseMessage,
  type ReceiveResult,
  type RequestMessage,
  requestStep,
} from '@parley/correlate';
import type { RequestEvent } from '@parley/fsm';
import * as restate from '@restatedev/restate-sdk';
import { ParleyRestateError } from './errors.js';
import { openShape, protocolMap } from './internal/checks.js';
import { type RequestRecord, settleRecord } from './request-record.js';
import {
  type CancelResult,
  DEFAULT_MAX_WATCHERS,
  type OpenRequest,
  type OpenResult,
  type RequestsHandlers,
  type RequestsObject,
  type RequestsOptions,
  type WatchResult,
} from './requests-types.js';

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
 * @throws ParleyRestateError `invalid_argument` for an empty name, no protocols, two protocols with
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
    throw new ParleyRestateError('invalid_argument', 'maxWatchers must be a positive integer');
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
      expireIn(ctx, name, timeoutMs);
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
          expireIn(ctx, name, record.deadlineAt - now);
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

/** Asks Restate to call the object's `expire` handler after `delayMs` (a durable timer). */
function expireIn(ctx: restate.ObjectContext, name: string, delayMs: number): void {
  ctx.genericSend({
    service: name,
    method: 'expire',
    key: ctx.key,
    parameter: null,
    inputSerde: restate.serde.json,
    delay: delayMs,
  });
}
