// The seed's two trackers, read from the lead's correlator instead of kept by hand:
//   shutdown_requests = {req_id: {target, status}}      plan_requests = {req_id: {from, plan, status}}
// The correlator already tracks every request it sent or received (state from the shared request
// machine), so a tracker is a filtered view of `lead.list()`, never a second copy that could drift.
import type { Correlator, TrackedRequest } from '@parley/correlate';
import type { RequestState } from '@parley/fsm';

export interface ShutdownEntry {
  readonly target: string;
  readonly status: RequestState;
  /** Why the teammate approved or refused. */
  readonly reason?: string;
}

export interface PlanEntry {
  readonly from: string;
  readonly plan: string;
  readonly status: RequestState;
  /** The lead's feedback. */
  readonly feedback?: string;
}

export interface Trackers {
  readonly shutdown_requests: Readonly<Record<string, ShutdownEntry>>;
  readonly plan_requests: Readonly<Record<string, PlanEntry>>;
}

/** The shutdown requests the lead sent, by request_id. */
export function shutdownRequests(lead: Correlator): Record<string, ShutdownEntry> {
  const out: Record<string, ShutdownEntry> = {};
  for (const r of sorted(lead.list({ role: 'requester', protocol: 'shutdown' }))) {
    out[r.id] = { target: r.to, status: r.state, ...(r.reason === undefined ? {} : { reason: r.reason }) };
  }
  return out;
}

/** The plans teammates submitted to the lead, by request_id. */
export function planRequests(lead: Correlator): Record<string, PlanEntry> {
  const out: Record<string, PlanEntry> = {};
  for (const r of sorted(lead.list({ role: 'responder', protocol: 'plan_approval' }))) {
    out[r.id] = {
      from: r.from,
      plan: planOf(r),
      status: r.state,
      ...(r.reason === undefined ? {} : { feedback: r.reason }),
    };
  }
  return out;
}

export function trackers(lead: Correlator): Trackers {
  return { shutdown_requests: shutdownRequests(lead), plan_requests: planRequests(lead) };
}

/** The plan text of a plan_approval request (its payload passed the protocol's schema on receipt). */
export function planOf(request: TrackedRequest): string {
  const payload = request.payload;
  return typeof payload === 'object' &&
    payload !== null &&
    'plan' in payload &&
    typeof payload.plan === 'string'
    ? payload.plan
    : '';
}

/** Oldest first; `req_2` before `req_10`. */
export function sorted(requests: readonly TrackedRequest[]): TrackedRequest[] {
  return [...requests].sort(
    (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en', { numeric: true }),
  );
}
