import {
  type Correlator,
  planApprovalProtocol,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import type { TeamTrackers } from '../team-types.js';

/** The shutdown and plan requests of a lead's correlator as trackers, oldest first. */
export function trackersOf(correlator: Correlator): TeamTrackers {
  const shutdowns = sorted(correlator.list({ role: 'requester', protocol: shutdownProtocol.name }));
  const plans = sorted(correlator.list({ role: 'responder', protocol: planApprovalProtocol.name }));
  return {
    shutdown_requests: Object.fromEntries(
      shutdowns.map((r) => [
        r.id,
        { target: r.to, status: r.state, ...(r.reason === undefined ? {} : { reason: r.reason }) },
      ]),
    ),
    plan_requests: Object.fromEntries(
      plans.map((r) => [
        r.id,
        {
          from: r.from,
          plan: (r.payload as { plan: string }).plan, // the protocol's schema checked it on receipt
          status: r.state,
          ...(r.reason === undefined ? {} : { feedback: r.reason }),
        },
      ]),
    ),
  };
}

/** Oldest first; `req_2` before `req_10`. */
export function sorted(requests: readonly TrackedRequest[]): TrackedRequest[] {
  return [...requests].sort(
    (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en', { numeric: true }),
  );
}
