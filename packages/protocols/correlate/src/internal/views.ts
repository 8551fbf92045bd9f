import type { Reply, TrackedRequest } from '../request-types.js';
import { type AnyRecord, Outgoing } from './records.js';

// What a host sees of a record: a tracked request, or the reply its promise settles with.

export function toTracked(record: AnyRecord): TrackedRequest {
  const tracked: { -readonly [K in keyof TrackedRequest]: TrackedRequest[K] } = {
    id: record.id,
    protocol: record.protocol.name,
    role: record instanceof Outgoing ? 'requester' : 'responder',
    from: record.from,
    to: record.to,
    state: record.state,
    payload: record.payload,
    createdAt: record.createdAt,
    deadlineAt: record.deadlineAt,
    maxDeadlineAt: record.maxDeadlineAt,
    waitingOnHuman: record.human,
  };
  if (record.response !== undefined) tracked.response = record.response;
  if (record.reason !== undefined) tracked.reason = record.reason;
  if (record.state !== 'pending') tracked.settledAt = record.settledAt;
  return tracked;
}

export function toReply(record: Outgoing): Reply {
  return {
    requestId: record.id,
    protocol: record.protocol.name,
    state: record.state === 'approved' ? 'approved' : 'rejected',
    approved: record.state === 'approved',
    response: record.response,
    reason: record.reason,
    from: record.to,
    settledAt: record.settledAt,
  };
}
