import { CoreError, createEmitter, isParleyError } from '@parley/core';
import {
  CORRELATE_ERROR_CODES,
  planApprovalProtocol,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import { createRosterWriter, readTeammate, type StoredTeammate } from './internal/roster-store.js';
import {
  MAX_TEAMMATES,
  type TeamLead,
  type TeamLeadEvents,
  type TeamLeadOptions,
  type TeammateRecord,
  type TeamRefusal,
  type TeamTrackers,
} from './team-types.js';

const LEAD_SHUTS_DOWN_LAST = 'the lead shuts down last';

/** What the lead holds of a teammate: `shutdown_pending` is never held, it is read from the correlator. */
type Held = { -readonly [K in keyof StoredTeammate]: StoredTeammate[K] } & { last?: TrackedRequest };

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

  const pendingShutdowns = (): TrackedRequest[] =>
    correlator.list({ role: 'requester', protocol: shutdownProtocol.name, state: 'pending' });
  const shutdownTargets = (): Set<string> => new Set(pendingShutdowns().map((r) => r.to));

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

  const refused = (code: TeamRefusal['code'], message: string): TeamRefusal => ({ ok: false, code, message });

  return {
    correlator,
    teammates() {
      const pendingTo = shutdownTargets();
      return names.map((name) => snapshot(name, pendingTo) as TeammateRecord);
    },
    teammate: (name) => snapshot(name),

    async requestShutdown(name, reason) {
      const record = records.get(name);
      if (record === undefined) return refused('unknown_teammate', `No teammate "${name}"`);
      if (record.status === 'shut_down') return refused('already_shut_down', `${name} has already shut down`);
      const pending = pendingShutdowns().find((r) => r.to === name);
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
    },

    review(requestId, approve, feedback) {
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
    },

    pending: (name) =>
      sorted(
        correlator
          .list({ state: 'pending' })
          .filter((r) => (name === undefined ? ours(r) : peerOf(r) === name)),
      ),

    trackers(): TeamTrackers {
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
    },

    on: (event, listener) => events.on(event, listener),

    async restore() {
      const ignored: string[] = [];
      let restored = 0;
      if (options.store === undefined) return { restored, ignored };
      for (const name of names) {
        const value = await options.store.get(`${prefix}${name}`);
        if (value === undefined) continue;
        const stored = readTeammate(value);
        if (stored === undefined) {
          ignored.push(name);
          continue;
        }
        const record = records.get(name) as Held;
        record.status = stored.status;
        record.lateReplies = stored.lateReplies;
        restored++;
      }
      return { restored, ignored };
    },

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

/** Oldest first; `req_2` before `req_10`. */
function sorted(requests: readonly TrackedRequest[]): TrackedRequest[] {
  return [...requests].sort(
    (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en', { numeric: true }),
  );
}

/** The code of an error from `@parley/correlate`; anything else is a bug and is thrown on. */
function codeOf(error: unknown): (typeof CORRELATE_ERROR_CODES)[number] {
  if (isParleyError(error, ...CORRELATE_ERROR_CODES)) return error.code;
  throw error;
}
