import type { RequestEvent } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { CorrelateMessage } from '../messages.js';
import type { Shared } from './context.js';
import type { Incoming, Tracker } from './records.js';
import { check, isPromise } from './util.js';

/** The pending record `id` answered at `now`: one clock reading decides and stamps the answer. */
export function pendingOrThrow(
  ctx: Shared,
  tracker: Tracker<Incoming>,
  settle: (record: Incoming, event: RequestEvent, now: number) => void,
  id: string,
  now: number,
): Incoming {
  if (ctx.isClosed())
    throw new CorrelateError('closed', `Correlator "${ctx.self}" is closed`, { details: { self: ctx.self } });
  const record = tracker.get(id);
  // An answer at or past the deadline is too late whatever the timer did: the request expires first.
  if (record !== undefined && record.state === 'pending') {
    if (now < record.deadlineAt) return record;
    settle(record, 'expire', now);
  }
  const done = record;
  if (done !== undefined) {
    throw new CorrelateError('not_pending', `Request "${id}" is already ${done.state}`, {
      details: { requestId: id, state: done.state },
    });
  }
  throw new CorrelateError('unknown_request', `No incoming request "${id}"`, {
    details: { requestId: id },
  });
}

/** Sends an answer to an incoming request; a transport that throws is reported and thrown as `send_failed`. */
export function sendOrThrow(ctx: Shared, record: Incoming, message: CorrelateMessage): void {
  try {
    ctx.send(message);
  } catch (cause) {
    ctx.events.emit('error', { code: 'send_failed', requestId: record.id, error: cause });
    throw new CorrelateError('send_failed', `Sending the ${message.kind} to "${record.from}" failed`, {
      details: { requestId: record.id },
      cause,
    });
  }
}

/**
 * The response to an incoming request, checked by its protocol's response schema.
 *
 * @throws CorrelateError `invalid_response` for a response the schema refuses, or an asynchronous schema.
 */
export function checkedResponse(record: Incoming, id: string, response: unknown): unknown {
  const checked = check(record.protocol.response, response);
  if (isPromise(checked)) {
    checked.catch(() => {}); // answered synchronously below; the async result is not needed
    throw new CorrelateError(
      'invalid_response',
      `The ${record.protocol.name} response schema is asynchronous; respond() needs a synchronous one`,
      {
        details: { requestId: id },
      },
    );
  }
  if (!checked.ok) {
    throw new CorrelateError(
      'invalid_response',
      `The response does not match the ${record.protocol.name} response schema`,
      {
        details: { requestId: id, issues: checked.issues, missingFields: checked.missingFields },
      },
    );
  }
  return checked.value;
}
