import { isParleyError } from '@parley/core';
import {
  CORRELATE_ERROR_CODES,
  type Correlator,
  planApprovalProtocol,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import type { PlanReviewed, ShutdownRequested, TeamRefusal } from '../team-types.js';
import type { Held } from './roster-store.js';

/** A lead's refusal as data. */
const refused = (code: TeamRefusal['code'], message: string): TeamRefusal => ({ ok: false, code, message });

/** The shutdown requests a lead's correlator holds as pending. */
export const pendingShutdowns = (correlator: Correlator): TrackedRequest[] =>
  correlator.list({ role: 'requester', protocol: shutdownProtocol.name, state: 'pending' });

/**
 * Asks a teammate to shut down, unless it is unknown, shut down already or asked already; a request
 * the correlator refuses before sending is a refusal with its code.
 */
export async function askShutdown(
  correlator: Correlator,
  record: Held | undefined,
  name: string,
  reason: string | undefined,
): Promise<ShutdownRequested | TeamRefusal> {
  if (record === undefined) return refused('unknown_teammate', `No teammate "${name}"`);
  if (record.status === 'shut_down') return refused('already_shut_down', `${name} has already shut down`);
  const pending = pendingShutdowns(correlator).find((r) => r.to === name);
  if (pending !== undefined) {
    return refused('already_pending', `Shutdown request ${pending.id} to ${name} is still pending`);
  }
  const reply = correlator.request(shutdownProtocol, {
    to: name,
    payload: reason === undefined ? {} : { reason },
  });
  const tracked = correlator.get(reply.id);
  if (tracked?.state !== 'pending') {
    // Refused before it was sent (a payload the schema rejects, a closed correlator…), or the
    // transport threw: the promise can only reject, with the code to refuse with.
    return reply.catch((error: unknown) =>
      refused(codeOf(error), (error as Error).message),
    ) as Promise<TeamRefusal>;
  }
  reply.catch(() => {}); // an expiry or a cancellation reaches the roster through the handler
  record.last = tracked;
  return { ok: true, requestId: reply.id, reply };
}

/** Answers a teammate's plan, unless the request is not a plan the lead received; the correlator's refusal is one too. */
export function reviewPlan(
  correlator: Correlator,
  requestId: string,
  approve: boolean,
  feedback: string | undefined,
): PlanReviewed | TeamRefusal {
  const request = correlator.get(requestId);
  if (
    request !== undefined &&
    (request.protocol !== planApprovalProtocol.name || request.role !== 'responder')
  ) {
    return refused('not_a_plan', `${requestId} is a ${request.protocol} request, not a plan to review`);
  }
  try {
    const done = correlator.respond(requestId, {
      approve,
      ...(feedback === undefined || feedback === '' ? {} : { reason: feedback }),
    });
    return { ok: true, request: done };
  } catch (error) {
    return refused(codeOf(error), (error as Error).message);
  }
}

/** The code of an error from `@parley/correlate`; anything else is a bug and is thrown on. */
function codeOf(error: unknown): (typeof CORRELATE_ERROR_CODES)[number] {
  if (isParleyError(error, ...CORRELATE_ERROR_CODES)) return error.code;
  throw error;
}
