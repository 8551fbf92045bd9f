import type { CorrelateRefusalCode } from '../errors.js';
import type { ListFilter, TrackedRequest } from '../request-types.js';
import type { CorrelatorStats } from '../types.js';
import type { Outgoing, Tracker } from './records.js';
import { toTracked } from './views.js';
import type { Responder } from './responder.js';

/** The requests of both sides of a correlator that pass `filter`: sent ones first (pending, then settled). */
export function listRequests(
  tracker: Tracker<Outgoing>,
  responder: Responder,
  filter: ListFilter,
): TrackedRequest[] {
  const out: TrackedRequest[] = [];
  if (filter.role !== 'responder') {
    for (const record of tracker.pendingRecords()) out.push(toTracked(record));
    for (const record of tracker.settledRecords()) out.push(toTracked(record));
  }
  if (filter.role !== 'requester') out.push(...responder.list());
  return out.filter(
    (r) =>
      (filter.protocol === undefined || r.protocol === filter.protocol) &&
      (filter.state === undefined || r.state === filter.state),
  );
}

/** How many requests each side of a correlator holds, and the refusals it counted. */
export function statsOf(
  tracker: Tracker<Outgoing>,
  responder: Responder,
  refusals: Partial<Record<CorrelateRefusalCode, number>>,
): CorrelatorStats {
  return {
    pending: tracker.pending,
    incoming: responder.pendingCount(),
    settled: tracker.settledCount + responder.settledCount(),
    refused: { ...refusals },
  };
}
