import { assertTimeoutMs, type InferOutput, isStandardSchema, type StandardSchemaV1 } from '@parley/core';
// zod/mini: the same validation as zod's classic API at a fraction of its bundle size.
import * as z from 'zod/mini';
import { CorrelateError } from './errors.js';

/**
 * How a valid response settles its request: approved or rejected, with an optional reason.
 *
 * @example
 * ```ts
 * import type { Decision } from '@parley/correlate';
 *
 * const decision: Decision = { approve: false, reason: 'still writing config.json' };
 * ```
 */
export interface Decision {
  readonly approve: boolean;
  readonly reason?: string;
}

/**
 * What {@link defineProtocol} takes: the request and response schemas (any Standard Schema), how
 * a response decides approve or reject, and the protocol's default deadlines.
 *
 * @example
 * ```ts
 * import type { ProtocolDefinition } from '@parley/correlate';
 * import { z } from 'zod';
 *
 * const definition: ProtocolDefinition<z.ZodString, z.ZodBoolean> = {
 *   request: z.string(),
 *   response: z.boolean(),
 *   decide: (ok) => ({ approve: ok }),
 *   timeoutMs: 10_000,
 * };
 * ```
 */
export interface ProtocolDefinition<TRequest extends StandardSchemaV1, TResponse extends StandardSchemaV1> {
  /** The schema of the request payload, checked before sending and on receipt. */
  readonly request: TRequest;
  /** The schema of the response; a reply that fails it never settles the request. */
  readonly response: TResponse;
  /**
   * Turns a valid response into approve or reject. By default a boolean `approve` field decides
   * and a string `reason` field is the reason; a response without a boolean `approve` fails
   * closed: it rejects the request with the reason `no_verdict`. Write `decide` for any other shape.
   */
  readonly decide?: (response: InferOutput<TResponse>) => Decision;
  /** The default deadline of a request, in ms; the correlator's own default when omitted. */
  readonly timeoutMs?: number;
  /** The default deadline of a request waiting on a person, in ms. */
  readonly humanTimeoutMs?: number;
  /** The most a request may live, progress included, in ms from when it was sent. */
  readonly maxTotalMs?: number;
}

/**
 * A protocol: a name, its request and response schemas, and how a response settles a request.
 * Made by {@link defineProtocol}; a static value, safe as a module constant.
 *
 * @example
 * ```ts
 * import { shutdownProtocol, type Protocol } from '@parley/correlate';
 *
 * const protocol: Protocol<'shutdown', { reason?: string }, { approve: boolean; reason?: string }> = shutdownProtocol;
 * console.log(protocol.name); // shutdown
 * ```
 */
export interface Protocol<TName extends string = string, TRequest = unknown, TResponse = unknown> {
  readonly name: TName;
  readonly request: StandardSchemaV1<unknown, TRequest>;
  readonly response: StandardSchemaV1<unknown, TResponse>;
  /** Turns a valid response into approve or reject. */
  decide(response: TResponse): Decision;
  readonly timeoutMs?: number | undefined;
  readonly humanTimeoutMs?: number | undefined;
  readonly maxTotalMs?: number | undefined;
}

/**
 * The request payload type of a protocol.
 *
 * @example
 * ```ts
 * import type { planApprovalProtocol, RequestOf } from '@parley/correlate';
 *
 * const payload: RequestOf<typeof planApprovalProtocol> = { plan: 'Refactor the auth module' };
 * ```
 */
export type RequestOf<P> = P extends Protocol<string, infer R, unknown> ? R : never;

/**
 * The response type of a protocol.
 *
 * @example
 * ```ts
 * import type { ResponseOf, shutdownProtocol } from '@parley/correlate';
 *
 * const response: ResponseOf<typeof shutdownProtocol> = { approve: true };
 * ```
 */
export type ResponseOf<P> = P extends Protocol<string, unknown, infer R> ? R : never;

/**
 * Defines a request/response protocol: a name plus Standard Schemas (zod, valibot, arktype…) for
 * the request and the response. Use it once per kind of negotiation (shutdown, plan approval,
 * anything with one request and one answer); pass the result to `createCorrelator`.
 *
 * @throws CorrelateError `invalid_argument` when the name is empty or a schema is not a Standard
 * Schema; CoreError `invalid_timeout` when a deadline is not a valid delay.
 * @example
 * ```ts
 * import { defineProtocol } from '@parley/correlate';
 * import { z } from 'zod';
 *
 * const deploy = defineProtocol('deploy', {
 *   request: z.object({ service: z.string(), version: z.string() }),
 *   response: z.object({ go: z.boolean(), note: z.string().optional() }),
 *   decide: (r) => ({ approve: r.go, ...(r.note === undefined ? {} : { reason: r.note }) }),
 *   timeoutMs: 60_000,
 * });
 * console.log(deploy.name, deploy.decide({ go: false, note: 'freeze' })); // deploy { approve: false, reason: 'freeze' }
 * ```
 */
export function defineProtocol<
  const TName extends string,
  TRequest extends StandardSchemaV1,
  TResponse extends StandardSchemaV1,
>(
  name: TName,
  definition: ProtocolDefinition<TRequest, TResponse>,
): Protocol<TName, InferOutput<TRequest>, InferOutput<TResponse>> {
  if (typeof name !== 'string' || name.length === 0) {
    throw new CorrelateError('invalid_argument', 'A protocol needs a non-empty name', { details: { name } });
  }
  if (!isStandardSchema(definition.request) || !isStandardSchema(definition.response)) {
    throw new CorrelateError(
      'invalid_argument',
      `Protocol "${name}" needs Standard Schemas for request and response`,
      {
        details: { protocol: name },
      },
    );
  }
  const { timeoutMs, humanTimeoutMs, maxTotalMs } = definition;
  return Object.freeze({
    name,
    request: definition.request,
    response: definition.response,
    decide: definition.decide ?? defaultDecide,
    timeoutMs: timeoutMs === undefined ? undefined : assertTimeoutMs(timeoutMs, 'timeoutMs'),
    humanTimeoutMs:
      humanTimeoutMs === undefined ? undefined : assertTimeoutMs(humanTimeoutMs, 'humanTimeoutMs'),
    maxTotalMs: maxTotalMs === undefined ? undefined : assertTimeoutMs(maxTotalMs, 'maxTotalMs'),
  });
}

/**
 * The reason a response without a verdict is rejected with by the default `decide`: it has no
 * boolean `approve` field. Give the protocol its own `decide` to read another shape.
 */
const NO_VERDICT = 'no_verdict';

function defaultDecide(response: unknown): Decision {
  const { approve, reason } =
    typeof response === 'object' && response !== null
      ? (response as { approve?: unknown; reason?: unknown })
      : {};
  // Fail closed: only an explicit `approve: true` approves; anything else unread is no verdict.
  if (typeof approve !== 'boolean') return { approve: false, reason: NO_VERDICT };
  return typeof reason === 'string' ? { approve, reason } : { approve };
}

// zod/mini carries no locale: each check says in its own words what it wants.
const Reason = z.optional(
  z.string('reason must be a string').check(z.maxLength(4000, 'reason must be at most 4000 characters')),
);
const Answer = z.object(
  { approve: z.boolean('approve must be true or false'), reason: Reason },
  'the answer must be an object',
);

/**
 * The shutdown handshake from the team-protocols seed: the lead asks a teammate to shut down
 * gracefully; the teammate approves (finishes and exits) or rejects (keeps working), with a reason.
 *
 * @example
 * ```ts
 * import { shutdownProtocol } from '@parley/correlate';
 *
 * console.log(shutdownProtocol.name, shutdownProtocol.decide({ approve: false, reason: 'mid-write' }));
 * // shutdown { approve: false, reason: 'mid-write' }
 * ```
 */
export const shutdownProtocol: Protocol<
  'shutdown',
  { reason?: string | undefined },
  { approve: boolean; reason?: string | undefined }
> = /* @__PURE__ */ defineProtocol('shutdown', {
  request: z.object({ reason: Reason }, 'the request must be an object'),
  response: Answer,
});

/**
 * Plan approval from the team-protocols seed: a teammate submits a plan before a risky change;
 * the lead approves or rejects it, with feedback as the reason.
 *
 * @example
 * ```ts
 * import { planApprovalProtocol } from '@parley/correlate';
 *
 * console.log(planApprovalProtocol.name, planApprovalProtocol.decide({ approve: true })); // plan_approval { approve: true }
 * ```
 */
export const planApprovalProtocol: Protocol<
  'plan_approval',
  { plan: string; reason?: string | undefined },
  { approve: boolean; reason?: string | undefined }
> = /* @__PURE__ */ defineProtocol('plan_approval', {
  request: z.object(
    {
      plan: z
        .string('plan must be a string')
        .check(
          z.minLength(1, 'plan must not be empty'),
          z.maxLength(100_000, 'plan must be at most 100000 characters'),
        ),
      reason: Reason,
    },
    'the request must be an object',
  ),
  response: Answer,
});
