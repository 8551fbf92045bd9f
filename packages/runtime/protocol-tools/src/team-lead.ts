import { CoreError, createEmitter } from '@parley/core';
import { planApprovalProtocol, shutdownProtocol, type TrackedRequest } from '@parley/correlate';
import { restoreRoster } from './internal/roster-restore.js';
import { createRosterWriter, type Held } from './internal/roster-store.js';
import { askShutdown, pendingShutdowns, reviewPlan } from './internal/team-requests.js';
import { sorted, trackersOf } from './internal/trackers.js';
import {
  MAX_TEAMMATES,
  type TeamLead,
  type TeamLeadEvents,
  type TeamLeadOptions,
  type TeammateRecord,
} from './team-types.js';

const LEAD_SHUTS_DOWN_LAST = 'the lead shuts down last';

/** What a settled shutdown request makes of the teammate it was sent to. */
const AFTER_SHUTDOWN: Readonly<Record<string, Held['status']>> = {
  approved: 'shut_down',
  expired: 'unresponsive',
};

/**
 * Creates the lead's side of the team-protocols seed on the lead's own correlator: a roster whose
 * statuses follow the shutdown handshake (`working → shutdown_pending → shut_down | working |
 * unresponsive`), `requestShutdown` and `review` that refuse as data before anything is sent, a
 * `plan` event when a teammate submits a plan, the pending requests per teammate, and the seed's
 * trackers read from the correlator (never a second copy that could drift). A shutdown request
 * sent to the lead is answered no. Statuses change only when the correlator settles a request, so
 * a late or forged reply it refuses changes nothing; a `late` one is counted on the teammate.
 *
 * The roster lives in memory. With a correlator on a `Store`, a new team lead after a restart sees
 * the restored pending shutdowns as `shutdown_pending`, and their outcome moves the status on.
 *
 * @throws CoreError `invalid_argument` when a teammate name is empty, repeated or the lead
 * itself, or there are more than {@link MAX_TEAMMATES}.
 * @example
 * ```ts
 * import { createCorrelator, type CorrelateMessage, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
 * import { createTeamLead } from '@parley/protocol-tools';
 *
 * const wire: CorrelateMessage[] = [];
 * const protocols = [shutdownProtocol, planApprovalProtocol];
 * const correlator = createCorrelator({ self: 'lead', protocols, send: (m) => void wire.push(m) });
 * const alice = createCorrelator({ self: 'alice', protocols, send: (m) => void wire.push(m) });
 * alice.on('request', ({ request }) => alice.respond(request.id, { approve: true, reason: 'saved; exiting' }));
 * const lead = createTeamLead({ correlator, teammates: ['alice'] });
 *
 * const sent = await lead.requestShutdown('alice', 'the work is done');
 * console.log(lead.teammate('alice')?.status); // shutdown_pending
 * for (let m = wire.shift(); m; m = wire.shift()) await (m.to === 'lead' ? correlator : alice).receive(m);
 * console.log(lead.teammate('alice')?.status); // shut_down
 * console.log((await lead.requestShutdown('alice')).ok); // false
 * console.log(lead.trackers().shutdown_requests[sent.ok ? sent.requestId : '']?.status); // approved
 * lead.close();
 * correlator.close();
 * alice.close();
 * ```
 */
export function createTeamLead(options: TeamLeadOptions): TeamLead {
  const { correlator } = options;
  const refuseShutdown = options.shutdownRefusal ?? LEAD_SHUTS_DOWN_LAST;
  const names = checkedNames(options);
  const records = new Map<string, Held>(names.map((name) => [name, { status: 'working', lateReplies: 0 }]));
  const events = createEmitter<TeamLeadEvents>();
  const prefix = options.keyPrefix ?? `parley:team:${correlator.self}:`;
  const writer = createRosterWriter(options.store, prefix, (teammate, error) =>
    events.emit('error', { teammate, error }),
  );
  const save = (name: string, record: Held): void => writer.write(name, record);
  const peerOf = (r: TrackedRequest): string => (r.role === 'requester' ? r.to : r.from);
  const ours = (r: TrackedRequest): boolean => records.has(peerOf(r));

  function snapshot(name: string, pendingTo = shutdownTargets()): TeammateRecord | undefined {
    const record = records.get(name);
    if (record === undefined) return undefined;
    // A pending shutdown the correlator holds (one restored after a restart, too) is what counts.
    const pending = record.status !== 'shut_down' && pendingTo.has(name);
    return {
      name,
      status: pending ? 'shutdown_pending' : record.status,
      ...(record.last === undefined ? {} : { last: record.last }),
      lateReplies: record.lateReplies,
    };
  }

  const shutdownTargets = (): Set<string> => new Set(pendingShutdowns(correlator).map((r) => r.to));

  const offs = [
    correlator.handle(shutdownProtocol, (r) => {
      const record = records.get(r.to);
      if (record === undefined) return; // (handlers run for the requests the lead sent)
      record.status = AFTER_SHUTDOWN[r.state] ?? 'working';
      record.last = r;
      save(r.to, record);
      events.emit('status', { teammate: snapshot(r.to) as TeammateRecord, request: r });
    }),
    correlator.on('settled', ({ request: r }) => {
      // A plan the lead answered (or let expire): its outcome is the teammate's latest.
      const record = records.get(r.from);
      if (r.role === 'responder' && r.protocol === planApprovalProtocol.name && record !== undefined) {
        record.last = r;
      }
    }),
    correlator.on('request', ({ request: r }) => {
      if (r.protocol === shutdownProtocol.name) {
        // Only the lead asks for shutdowns: one asked of the lead is answered no, never ignored.
        correlator.respond(r.id, { approve: false, reason: refuseShutdown });
        return;
      }
      const record = records.get(r.from);
      if (r.protocol !== planApprovalProtocol.name || record === undefined) return;
      record.last = r;
      events.emit('plan', { request: r });
    }),
    correlator.on('refused', (refusal) => {
      const record = records.get(refusal.from ?? '');
      if (refusal.code === 'late' && record !== undefined) {
        record.lateReplies++;
        save(refusal.from as string, record);
      }
    }),
  ];

  return {
    correlator,
    teammates() {
      const pendingTo = shutdownTargets();
      return names.map((name) => snapshot(name, pendingTo) as TeammateRecord);
    },
    teammate: (name) => snapshot(name),

    requestShutdown: (name, reason) => askShutdown(correlator, records.get(name), name, reason),
    review: (requestId, approve, feedback) => reviewPlan(correlator, requestId, approve, feedback),
    pending: (name) =>
      sorted(
        correlator
          .list({ state: 'pending' })
          .filter((r) => (name === undefined ? ours(r) : peerOf(r) === name)),
      ),

    trackers: () => trackersOf(correlator),
    on: (event, listener) => events.on(event, listener),
    restore: () => restoreRoster(options.store, prefix, names, records),

    idle: () => writer.idle(),

    close() {
      for (const off of offs.splice(0)) off();
      events.removeAllListeners();
    },
  };
}

function checkedNames(options: TeamLeadOptions): readonly string[] {
  const { correlator, teammates } = options;
  const names = [...teammates];
  const bad = names.find((n) => typeof n !== 'string' || n === '' || n === correlator.self);
  if (bad !== undefined || new Set(names).size !== names.length || names.length > MAX_TEAMMATES) {
    throw new CoreError(
      'invalid_argument',
      `Teammates must be up to ${MAX_TEAMMATES} distinct non-empty names other than the lead "${correlator.self}"`,
      { details: { teammates: names.map(String) } },
    );
  }
  return names;
}
