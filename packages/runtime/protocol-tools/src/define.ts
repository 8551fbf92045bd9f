import { isParleyError, toJsonSchema } from '@parley/core';
import type { Correlator, Protocol, TrackedRequest } from '@parley/correlate';
import { defineTool, type ToolDefinition, type ToolRejection } from '@parley/tools';
// zod/mini: the same validation as zod's classic API at a fraction of its bundle size.
import * as z from 'zod/mini';
import { noticeOf, type ProtocolNotice } from './notice.js';
import {
  REQUEST_TOOL_REASONS,
  RESPOND_TOOL_REASONS,
  type RequestToolReason,
  type RespondToolReason,
} from './reasons.js';

const RequestArgs = z.object({
  to: z.string().check(z.minLength(1), z.maxLength(128)),
  payload: z.unknown(),
});
const RespondArgs = z.object({
  request_id: z.string().check(z.minLength(1), z.maxLength(256)),
  approve: z.boolean(),
  reason: z.optional(z.string().check(z.maxLength(4000))),
});

/**
 * What the protocol tools' executors need at run time, passed as the tool gate's `context`: the
 * party's own correlator, and who it may send requests to.
 *
 * @example
 * ```ts
 * import { createCorrelator, shutdownProtocol } from '@parley/correlate';
 * import type { ProtocolToolContext } from '@parley/protocol-tools';
 *
 * const correlator = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: () => {} });
 * const context: ProtocolToolContext = { correlator, peers: ['alice', 'bob'] };
 * correlator.close();
 * ```
 */
export interface ProtocolToolContext {
  readonly correlator: Pick<Correlator, 'self' | 'request' | 'respond' | 'get' | 'list'>;
  /** The parties the model may send requests to; any but itself when omitted. */
  readonly peers?: readonly string[];
}

/**
 * Options of {@link defineProtocolTools}.
 *
 * @example
 * ```ts
 * import type { ProtocolToolsOptions } from '@parley/protocol-tools';
 *
 * const options: ProtocolToolsOptions<'plan_submit', 'plan_review'> = { requestName: 'plan_submit', respondName: 'plan_review', waitingOnHuman: true };
 * ```
 */
export interface ProtocolToolsOptions<TRequestName extends string, TRespondName extends string> {
  /** The request tool's name; `<protocol>_request` by default. */
  readonly requestName?: TRequestName;
  /** The respond tool's name; `<protocol>_response` by default. */
  readonly respondName?: TRespondName;
  readonly requestDescription?: string;
  readonly respondDescription?: string;
  /** The payload's JSON Schema as the model sees it; derived from the request schema when it can describe itself. */
  readonly payloadJsonSchema?: Readonly<Record<string, unknown>>;
  /** Requests made through the tool wait on a person (the protocol's human deadline). */
  readonly waitingOnHuman?: boolean;
}

/**
 * What the request tool returns to the model: the id the answer will name, and that it is pending.
 *
 * @example
 * ```ts
 * import type { RequestToolResult } from '@parley/protocol-tools';
 *
 * const result: RequestToolResult = { request_id: 'req_1', to: 'alice', status: 'pending' };
 * ```
 */
export interface RequestToolResult {
  readonly request_id: string;
  readonly to: string;
  readonly status: 'pending';
}

/**
 * What the respond tool returns to the model: the request and the state the answer settled it in.
 *
 * @example
 * ```ts
 * import type { RespondToolResult } from '@parley/protocol-tools';
 *
 * const result: RespondToolResult = { request_id: 'req_1', state: 'approved' };
 * ```
 */
export interface RespondToolResult {
  readonly request_id: string;
  readonly state: TrackedRequest['state'];
}

/**
 * The two tools of one protocol, plus the notice that tells the model about its requests.
 *
 * @example
 * ```ts
 * import { shutdownProtocol } from '@parley/correlate';
 * import { defineProtocolTools, type ProtocolTools } from '@parley/protocol-tools';
 *
 * const shutdown: ProtocolTools<'shutdown_request', 'shutdown_response'> = defineProtocolTools(shutdownProtocol);
 * console.log(shutdown.request.name, shutdown.respond.name); // shutdown_request shutdown_response
 * ```
 */
export interface ProtocolTools<TRequestName extends string, TRespondName extends string> {
  readonly protocol: Protocol;
  readonly request: ToolDefinition<
    TRequestName,
    typeof RequestArgs,
    RequestToolReason,
    RequestToolResult,
    ProtocolToolContext
  >;
  readonly respond: ToolDefinition<
    TRespondName,
    typeof RespondArgs,
    RespondToolReason,
    RespondToolResult,
    ProtocolToolContext
  >;
  /** What to tell the model about a request: one waiting for its answer, or the outcome of its own. */
  notice(request: TrackedRequest): ProtocolNotice;
}

/**
 * Turns a `@parley/correlate` protocol into two `@parley/tools` definitions a model can call: the
 * request tool (`shutdown_request`: `{ to, payload }`, returns the `request_id`) and the respond
 * tool (`shutdown_response`: `{ request_id, approve, reason? }`). Use it when a teammate is driven by
 * a model: it requests, answers and reviews through the same correlator handshake a scripted party
 * uses, and everything the correlator refuses comes back to the model as `tool_feedback` with one of
 * the tool's declared reasons. For protocols whose response is `{ approve, reason? }`.
 *
 * @throws ToolsError `invalid_tool` when a tool name is not a valid function name.
 * @example
 * ```ts
 * import { createCorrelator, planApprovalProtocol } from '@parley/correlate';
 * import { defineProtocolTools } from '@parley/protocol-tools';
 * import { createToolGate } from '@parley/tools';
 *
 * const plan = defineProtocolTools(planApprovalProtocol, { requestName: 'plan_submit', respondName: 'plan_review' });
 * const correlator = createCorrelator({ self: 'bob', protocols: [planApprovalProtocol], send: () => {} });
 * const gate = createToolGate({ tools: [plan.request, plan.respond], allowlist: ['plan_submit', 'plan_review'] });
 * const result = await gate.process(
 *   [{ id: 'call_1', tool: 'plan_submit', args: { to: 'lead', payload: { plan: 'Refactor auth in 3 stages' } } }],
 *   { turn: 1, context: { correlator } },
 * );
 * console.log(result.executed[0]?.result); // { request_id: …, to: 'lead', status: 'pending' }
 * correlator.close();
 * ```
 */
export function defineProtocolTools<
  const TRequestName extends string = string,
  const TRespondName extends string = string,
>(
  protocol: Protocol,
  options: ProtocolToolsOptions<TRequestName, TRespondName> = {},
): ProtocolTools<TRequestName, TRespondName> {
  const requestName = (options.requestName ?? `${protocol.name}_request`) as TRequestName; // the default name
  const respondName = (options.respondName ?? `${protocol.name}_response`) as TRespondName; // likewise
  const request = defineTool<
    TRequestName,
    typeof RequestArgs,
    RequestToolReason,
    RequestToolResult,
    ProtocolToolContext
  >({
    name: requestName,
    description:
      options.requestDescription ??
      `Sends a ${protocol.name} request to a teammate; returns its request_id. The answer arrives later as a protocol_outcome.`,
    args: RequestArgs,
    reasons: REQUEST_TOOL_REASONS,
    jsonSchema: objectSchema(
      { to: { type: 'string' }, payload: options.payloadJsonSchema ?? payloadSchema(protocol) },
      ['to', 'payload'],
    ),
    async execute(args, { context, reject }) {
      const { correlator, peers } = context;
      if (args.to === correlator.self || (peers !== undefined && !peers.includes(args.to))) {
        return reject('unknown_peer', `"${args.to}" is not a teammate you can ask`);
      }
      const open = correlator.list({ role: 'requester', protocol: protocol.name, state: 'pending' });
      const pending = open.find((r) => r.to === args.to);
      if (pending !== undefined)
        return reject('already_pending', `${pending.id} to ${args.to} is still pending`);
      const reply = correlator.request(protocol, {
        to: args.to,
        payload: args.payload,
        ...(options.waitingOnHuman === true ? { waitingOnHuman: true } : {}),
      });
      // A request refused before it was sent rejects at once; one that was sent stays pending.
      const failed = await Promise.race([
        reply.then(
          () => undefined,
          (error: unknown) => error,
        ),
        later(),
      ]);
      if (failed !== undefined) return refusal(failed, REQUEST_TOOL_REASONS, reject);
      return { request_id: reply.id, to: args.to, status: 'pending' as const };
    },
  });
  const respond = defineTool<
    TRespondName,
    typeof RespondArgs,
    RespondToolReason,
    RespondToolResult,
    ProtocolToolContext
  >({
    name: respondName,
    description:
      options.respondDescription ??
      `Answers a ${protocol.name} request by its request_id: approve true or false, with a reason.`,
    args: RespondArgs,
    reasons: RESPOND_TOOL_REASONS,
    jsonSchema: objectSchema(
      { request_id: { type: 'string' }, approve: { type: 'boolean' }, reason: { type: 'string' } },
      ['request_id', 'approve'],
    ),
    execute(args, { context, reject }) {
      const tracked = context.correlator.get(args.request_id);
      if (tracked === undefined || tracked.role !== 'responder') {
        return reject('unknown_request', `No request "${args.request_id}" is waiting for your answer`);
      }
      if (tracked.protocol !== protocol.name) {
        return reject('wrong_protocol', `${args.request_id} is a ${tracked.protocol} request`);
      }
      try {
        const reason = args.reason === undefined ? {} : { reason: args.reason };
        const done = context.correlator.respond(args.request_id, { approve: args.approve, ...reason });
        return { request_id: done.id, state: done.state };
      } catch (error) {
        return refusal(error, RESPOND_TOOL_REASONS, reject);
      }
    },
  });
  return {
    protocol,
    request,
    respond,
    notice: (tracked) => noticeOf(tracked, respondName),
  };
}

/** A correlator error with one of the tool's reasons becomes that refusal; anything else is a bug. */
function refusal<R extends string>(
  error: unknown,
  reasons: readonly R[],
  reject: (reason: R, message?: string) => ToolRejection<R>,
): ToolRejection<R> {
  if (isParleyError(error, ...reasons)) return reject(error.code, error.message);
  throw error;
}

/** Resolves after the microtasks of a synchronous rejection have run. */
async function later(): Promise<undefined> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
  return undefined;
}

function payloadSchema(protocol: Protocol): Record<string, unknown> {
  try {
    return toJsonSchema(protocol.request);
  } catch {
    return { type: 'object' };
  }
}

function objectSchema(
  properties: Record<string, unknown>,
  required: readonly string[],
): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false };
}
