import { type SessionAddress, parseSessionKey } from '@parley/bus';
import { ConfirmError } from '../errors.js';
import type { ConfirmRequest } from '../decision.js';
import type { ApproverPolicy } from '../outcomes.js';
import { normalizeExact } from '../vocabulary.js';

/** Checks a request's shape and returns the address of its session. */
export function checkRequest(request: ConfirmRequest): SessionAddress {
  const bad = (message: string): never => {
    throw new ConfirmError('invalid_argument', message);
  };
  if (typeof request?.summary !== 'string' || request.summary.trim() === '')
    bad('summary must be a non-empty string');
  if (typeof request.requester !== 'string' || request.requester === '')
    bad('requester must be a non-empty user id');
  if (typeof request.action !== 'object' || request.action === null) bad('action must be { name, args }');
  if (request.steps !== undefined) {
    const ok =
      Array.isArray(request.steps) &&
      request.steps.length > 0 &&
      request.steps.every(
        (step) =>
          typeof step?.prompt === 'string' &&
          step.prompt !== '' &&
          typeof step.expect === 'string' &&
          normalizeExact(step.expect) !== '',
      );
    if (!ok) bad('steps must be a non-empty list of { prompt, expect } with non-empty texts');
  }
  try {
    return parseSessionKey(request.sessionKey);
  } catch (error) {
    throw new ConfirmError('invalid_argument', `Not a session key: ${String(request.sessionKey)}`, {
      cause: error,
    });
  }
}

export function checkApprovers(policy: ApproverPolicy): ApproverPolicy {
  if (policy === 'requester' || policy === 'any') return policy;
  if (
    Array.isArray(policy) &&
    policy.length > 0 &&
    policy.every((id) => typeof id === 'string' && id !== '')
  ) {
    return [...policy];
  }
  throw new ConfirmError(
    'invalid_argument',
    'approvers must be "requester", "any" or a non-empty list of user ids',
    {
      details: { approvers: String(policy) },
    },
  );
}

export function checkChoice<T extends string>(value: T, allowed: readonly T[], name: string): T {
  if (allowed.includes(value)) return value;
  throw new ConfirmError('invalid_argument', `${name} must be one of ${allowed.join(', ')}`, {
    details: { [name]: String(value) },
  });
}

export function checkCount(value: number, name: string): number {
  if (Number.isInteger(value) && value >= 0 && value <= 1000) return value;
  throw new ConfirmError('invalid_argument', `${name} must be an integer from 0 to 1000`, {
    details: { [name]: value },
  });
}
