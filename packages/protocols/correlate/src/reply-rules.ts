import type { ValidationIssue } from '@parley/core';
import type { RequestState } from '@parley/fsm';
import { check, isPromise } from './internal/util.js';
import type { ProgressMessage, ResponseMessage } from './messages.js';
import type { Protocol } from './protocol.js';

/**
 * The facts of a sent request that decide whether a reply may settle it.
 *
 * @example
 * ```ts
 * import type { ReplyTarget } from '@parley/correlate';
 *
 * const target: ReplyTarget = { id: 'r1', to: 'alice', protocol: 'shutdown', state: 'pending', deadlineAt: 30_000 };
 * ```
 */
export interface ReplyTarget {
  readonly id: string;
  /** Who the request was sent to: the only party whose reply counts. */
  readonly to: string;
  /** The protocol name of the request. */
  readonly protocol: string;
  readonly state: RequestState;
  /** The absolute deadline (epoch ms). */
  readonly deadlineAt: number;
}

/**
 * What {@link checkReply} says of a reply: it may go on to its schema (with the target it was
 * checked against), or it is refused. A refusal
 * with `expire: true` found the request still pending past its deadline: expire it first, then
 * report the refusal (`late`).
 *
 * @example
 * ```ts
 * import type { ReplyCheck } from '@parley/correlate';
 *
 * const check: ReplyCheck = { ok: false, code: 'late', message: 'Request "r1" expired before this response arrived', expire: true, state: 'expired' };
 * ```
 */
export type ReplyCheck<T extends ReplyTarget = ReplyTarget> =
  | { readonly ok: true; readonly target: T }
  | {
      readonly ok: false;
      readonly code: 'unknown_request' | 'wrong_sender' | 'protocol_mismatch' | 'late' | 'duplicate';
      readonly message: string;
      /** The request is pending past its deadline: the caller expires it before answering. */
      readonly expire: boolean;
      /** The state of the request after the check (`expired` when `expire` is true). */
      readonly state?: RequestState;
    };

/**
 * The rule a reply or progress note meets before anything else, pure: an unknown request, a reply
 * from someone the request was not sent to, another protocol, a request already settled (`late`
 * once expired, `duplicate` otherwise) and a request past its deadline are refused, in that order.
 * The correlator uses it for every reply; use it to judge replies on another runner (a durable
 * engine) with the same rule.
 *
 * @example
 * ```ts
 * import { checkReply } from '@parley/correlate';
 *
 * const target = { id: 'r1', to: 'alice', protocol: 'shutdown', state: 'pending', deadlineAt: 30_000 } as const;
 * const reply = { kind: 'response', request_id: 'r1', protocol: 'shutdown', from: 'mallory' } as const;
 * console.log(checkReply(target, reply, 1_000).ok); // false
 * console.log(checkReply(target, { ...reply, from: 'alice' }, 1_000).ok); // true
 * console.log(checkReply(target, { ...reply, from: 'alice' }, 30_000).ok); // false
 * ```
 */
export function checkReply<T extends ReplyTarget>(
  target: T | undefined,
  reply: Pick<ResponseMessage | ProgressMessage, 'kind' | 'request_id' | 'from' | 'protocol'>,
  now: number,
): ReplyCheck<T> {
  if (target === undefined) return unknownRequest(reply.request_id);
  return replyRefusal(target, target.protocol, reply, now) ?? { ok: true, target };
}

/** A refusal of {@link ReplyCheck}. */
export type ReplyRefusal = Extract<ReplyCheck, { readonly ok: false }>;

/** The refusal of a reply to a request this side does not know. Internal, as {@link replyRefusal}. */
export function unknownRequest(requestId: string): ReplyRefusal {
  return { ok: false, code: 'unknown_request', message: `No request "${requestId}"`, expire: false };
}

/**
 * The rule of {@link checkReply} for a known request, or undefined when the reply may go on: no
 * object on the way through. Internal: the correlator passes its record and its protocol's name,
 * so a reply that settles a request costs no facts object and no result.
 */
export function replyRefusal(
  target: Omit<ReplyTarget, 'protocol'>,
  protocol: string,
  reply: Pick<ResponseMessage | ProgressMessage, 'kind' | 'from' | 'protocol'>,
  now: number,
): ReplyRefusal | undefined {
  const state = target.state;
  if (reply.from !== target.to) {
    const message = `Request "${target.id}" was sent to "${target.to}", not "${reply.from}"`;
    return { ok: false, code: 'wrong_sender', message, expire: false, state };
  }
  if (reply.protocol !== protocol) {
    const message = `Request "${target.id}" is a ${protocol} request, not ${reply.protocol}`;
    return { ok: false, code: 'protocol_mismatch', message, expire: false, state };
  }
  if (state !== 'pending') return { ...settledRefusal(target.id, state, reply.kind), expire: false, state };
  if (now >= target.deadlineAt) {
    return { ...settledRefusal(target.id, 'expired', reply.kind), expire: true, state: 'expired' };
  }
  return undefined;
}

/**
 * Why a reply to a request that is no longer pending is refused: `late` when it expired,
 * `duplicate` when it was settled otherwise.
 *
 * @example
 * ```ts
 * import { settledRefusal } from '@parley/correlate';
 *
 * console.log(settledRefusal('r1', 'approved', 'response').code); // duplicate
 * ```
 */
export function settledRefusal(
  id: string,
  state: Exclude<RequestState, 'pending'>,
  kind: 'response' | 'progress',
): { readonly ok: false; readonly code: 'late' | 'duplicate'; readonly message: string } {
  return state === 'expired'
    ? { ok: false, code: 'late', message: `Request "${id}" expired before this ${kind} arrived` }
    : { ok: false, code: 'duplicate', message: `Request "${id}" is already ${state}` };
}

/**
 * What {@link judgeResponse} makes of a response: the verdict it settles the request with, or why
 * it leaves the request pending.
 *
 * @example
 * ```ts
 * import type { ResponseVerdict } from '@parley/correlate';
 *
 * const verdict: ResponseVerdict = { ok: true, event: 'approve', response: { approve: true } };
 * ```
 */
export type ResponseVerdict =
  | {
      readonly ok: true;
      readonly event: 'approve' | 'reject';
      /** The response as its schema returned it. */
      readonly response: unknown;
      readonly reason?: string;
    }
  | {
      readonly ok: false;
      readonly code: 'invalid_response';
      readonly message: string;
      readonly issues?: readonly ValidationIssue[];
    };

/**
 * The rule for the content of a response, pure: it must pass the protocol's response schema, and
 * the protocol's `decide` turns it into approve or reject (a `decide` that throws refuses the
 * response). A refused response leaves the request pending. Synchronous unless the schema is async.
 *
 * @example
 * ```ts
 * import { judgeResponse, shutdownProtocol } from '@parley/correlate';
 *
 * console.log(await judgeResponse(shutdownProtocol, 'r1', { approve: true })); // { ok: true, event: 'approve', response: { approve: true } }
 * console.log((await judgeResponse(shutdownProtocol, 'r1', 'yes')).ok); // false
 * ```
 */
export function judgeResponse(
  protocol: Protocol,
  requestId: string,
  response: unknown,
): ResponseVerdict | Promise<ResponseVerdict> {
  const checked = check(protocol.response, response);
  if (isPromise(checked)) return checked.then((result) => decided(protocol, requestId, result));
  return decided(protocol, requestId, checked);
}

function decided(
  protocol: Protocol,
  requestId: string,
  checked: ReturnType<typeof check> extends infer R ? Awaited<R> : never,
): ResponseVerdict {
  if (!checked.ok) {
    return {
      ok: false,
      code: 'invalid_response',
      issues: checked.issues,
      message: `The response to "${requestId}" does not match the ${protocol.name} schema; the request stays pending`,
    };
  }
  try {
    const decision = protocol.decide(checked.value);
    const event = decision.approve ? 'approve' : 'reject';
    // Two literals, not a conditional spread: this runs on every response (see targetOf in replies.ts).
    return decision.reason === undefined
      ? { ok: true, event, response: checked.value }
      : { ok: true, event, response: checked.value, reason: decision.reason };
  } catch (error) {
    return {
      ok: false,
      code: 'invalid_response',
      message: `decide() of ${protocol.name} threw: ${String(error)}`,
    };
  }
}
