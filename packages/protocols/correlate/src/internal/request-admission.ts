import { assertTimeoutMs, type ValidationResult } from '@parley/core';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { RequestOptions } from '../request-types.js';
import type { Shared } from './context.js';

/**
 * Refuses a request that may not start: the correlator is closed, the protocol is not its own,
 * `to` is empty, or `inFlight` requests already take every place under `maxPending`.
 */
export function assertAdmissible(
  ctx: Shared,
  protocol: Protocol,
  input: RequestOptions<unknown>,
  inFlight: number,
): void {
  if (ctx.isClosed()) throw ctx.closedError();
  if (ctx.protocols.get(protocol.name) !== protocol) {
    throw new CorrelateError(
      'unknown_protocol',
      `Protocol "${protocol.name}" is not registered with this correlator`,
      { details: { protocol: protocol.name } },
    );
  }
  if (typeof input.to !== 'string' || input.to.length === 0) {
    throw new CorrelateError('invalid_argument', 'A request needs a non-empty "to"', {
      details: { to: input.to },
    });
  }
  if (inFlight >= ctx.maxPending) {
    throw new CorrelateError(
      'too_many_pending',
      `Correlator "${ctx.self}" already has ${ctx.maxPending} pending requests`,
      { details: { limit: ctx.maxPending, protocol: protocol.name } },
    );
  }
}

/** Refuses a payload that failed the protocol's request schema. */
export function assertValidPayload(
  protocol: Protocol,
  checked: ValidationResult<unknown>,
): asserts checked is Extract<ValidationResult<unknown>, { ok: true }> {
  if (!checked.ok) {
    throw new CorrelateError(
      'invalid_payload',
      `The payload does not match the ${protocol.name} request schema`,
      {
        details: { protocol: protocol.name, issues: checked.issues, missingFields: checked.missingFields },
      },
    );
  }
}

/** When a request falls due, and from which timeout: its own, the human one, or the protocol's. */
export interface RequestTiming {
  readonly human: boolean;
  readonly timeoutMs: number;
  readonly deadlineAt: number;
  readonly maxDeadlineAt: number;
}

/** The timing of a request created `now`; the deadline never passes the protocol's total limit. */
export function requestTiming(
  ctx: Shared,
  protocol: Protocol,
  input: RequestOptions<unknown>,
  defaults: { readonly timeoutMs: number; readonly humanTimeoutMs: number },
  now: number,
): RequestTiming {
  const human = input.waitingOnHuman === true;
  const ms =
    input.timeoutMs !== undefined
      ? assertTimeoutMs(input.timeoutMs, 'timeoutMs')
      : human
        ? (protocol.humanTimeoutMs ?? defaults.humanTimeoutMs)
        : (protocol.timeoutMs ?? defaults.timeoutMs);
  const maxAt = now + (protocol.maxTotalMs ?? ctx.maxTotalMs);
  return { human, timeoutMs: ms, deadlineAt: now + ms < maxAt ? now + ms : maxAt, maxDeadlineAt: maxAt };
}
