import type { ValidationResult } from '@parley/core';
import type { RequestMessage } from '../messages.js';
import type { Protocol } from '../protocol.js';
import type { CorrelateRefusal, ReceiveResult } from '../receive-result.js';
import type { Shared } from './context.js';
import { Incoming, type Tracker } from './records.js';
import { toTracked } from './views.js';

/**
 * Admits a request whose payload was checked, unless its id is in use, its payload is invalid, it
 * arrived after its deadline or too many are pending: the record is held and its deadline armed.
 */
export function admitRequest(
  ctx: Shared,
  tracker: Tracker<Incoming>,
  onDeadline: (record: Incoming) => void,
  message: RequestMessage,
  protocol: Protocol,
  checked: ValidationResult<unknown>,
): ReceiveResult {
  const existing = tracker.get(message.request_id);
  if (existing !== undefined) {
    return ctx.refuse({
      ...about(message),
      code: 'duplicate_request',
      state: existing.state,
      message: `Request id "${message.request_id}" is already in use (${existing.state}); the new request is refused`,
    });
  }
  if (!checked.ok) {
    return ctx.refuse({
      ...about(message),
      code: 'invalid_payload',
      issues: checked.issues,
      message: `The payload does not match the ${protocol.name} request schema`,
    });
  }
  const now = ctx.clock.now();
  if (message.deadline_at <= now) {
    return ctx.refuse({
      ...about(message),
      code: 'late',
      message: `Request "${message.request_id}" arrived after its deadline`,
    });
  }
  if (tracker.pending >= ctx.maxPending) {
    return ctx.refuse({
      ...about(message),
      code: 'too_many_pending',
      message: `Correlator "${ctx.self}" already has ${ctx.maxPending} requests to answer`,
    });
  }
  const maxAt = now + (protocol.maxTotalMs ?? ctx.maxTotalMs);
  const record = new Incoming(
    message.request_id,
    protocol,
    message.from,
    ctx.self,
    checked.value,
    now,
    Math.min(message.deadline_at, maxAt),
    maxAt,
    false,
  );
  record.deadline = ctx.queue.add(record.deadlineAt, onDeadline, record);
  tracker.addPending(record);
  if (ctx.events.listenerCount('request') > 0) ctx.events.emit('request', { request: toTracked(record) });
  return { ok: true, kind: 'request', requestId: record.id, state: record.state };
}

/** What a refusal of an incoming request says about it. */
export function about(
  message: RequestMessage,
): Pick<CorrelateRefusal, 'requestId' | 'kind' | 'from' | 'protocol'> {
  return { requestId: message.request_id, kind: 'request', from: message.from, protocol: message.protocol };
}
