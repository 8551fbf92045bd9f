// The lead's side: one correlator for the lead, a wire to each teammate, handlers that turn settled
// requests into the team roster, and the few operations a lead has: ask for a shutdown, review a
// plan. Anything a peer gets wrong (a late reply, a reply from the wrong teammate) is refused by the
// correlator as data; the host only reports it.
import { type IdGenerator, isParleyError, type ManualClock } from '@parley/core';
import {
  CORRELATE_ERROR_CODES,
  type CorrelateErrorCode,
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
  type Refusal,
  type Reply,
  type ResponseOf,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import { TEAM, type TeammateScript } from './cast.js';
import { renderTeamView } from './team-view.js';
import { createTeammate, PROTOCOLS, type Teammate } from './teammate.js';
import { clockTime, type Transcript } from '@parley/testing';
import { createWire, deliverAll, LEAD, type Wire, wireSender } from './wire.js';

export const SHUTDOWN_TIMEOUT_MS = 30_000;
/** Settled requests stay in the lead's trackers this long, for the `/team` view and audit. */
export const RETAIN_SETTLED_MS = 60 * 60_000;

export type MemberStatus = 'working' | 'shutdown_pending' | 'shut_down' | 'unresponsive';

/** The lead's record of one teammate; changed only by the lead's handlers. */
export interface Member {
  readonly name: string;
  readonly role: string;
  readonly task: string;
  status: MemberStatus;
  note: string;
}

/** Why the lead's host refused a command before anything was sent. */
export const HOST_REFUSAL_CODES = [
  'unknown_teammate',
  'already_shut_down',
  'already_pending',
  'not_a_plan',
] as const;
export type HostRefusalCode = (typeof HOST_REFUSAL_CODES)[number];

export type Refused = {
  readonly ok: false;
  readonly code: HostRefusalCode | CorrelateErrorCode;
  readonly message: string;
};
export type ShutdownResult =
  | {
      readonly ok: true;
      readonly requestId: string;
      readonly reply: Promise<Reply<ResponseOf<typeof shutdownProtocol>>>;
    }
  | Refused;
export type ReviewResult = { readonly ok: true; readonly request: TrackedRequest } | Refused;

export interface TeamOptions {
  readonly clock: ManualClock;
  readonly generateId: IdGenerator;
  readonly transcript: Transcript;
  readonly cast?: readonly TeammateScript[];
  readonly shutdownTimeoutMs?: number;
}

export interface Team {
  readonly lead: Correlator;
  readonly clock: ManualClock;
  readonly members: readonly Readonly<Member>[];
  teammate(name: string): Teammate | undefined;
  wire(name: string): Wire | undefined;
  /** Replies the lead's correlator refused (late, wrong sender…), in order. */
  readonly ignored: readonly Refusal[];
  /** The lead asks a teammate to shut down; the reply promise settles approved / rejected or fails `timeout`. */
  requestShutdown(name: string, reason?: string): Promise<ShutdownResult>;
  /** The lead approves or rejects a plan a teammate submitted; the feedback goes back as the reason. */
  review(requestId: string, approve: boolean, feedback?: string): ReviewResult;
  /** The lead withdraws a pending request it sent; false when it was not pending. */
  cancel(requestId: string): Promise<boolean>;
  /** A teammate answers a request that was never sent to it, straight on its wire (misbehaviour). */
  forge(
    from: string,
    requestId: string,
    response: { approve: boolean; reason?: string },
  ): Refused | undefined;
  startWork(name: string): void;
  /** Writes a line of the lead's host to the transcript. */
  log(text: string): void;
  /** Delivers every waiting message. */
  deliver(): Promise<void>;
  /** Lets `ms` pass on the clock, delivering messages after each timer that fires. */
  advance(ms: number): Promise<void>;
  /** The `/team` status view. */
  view(): string;
  close(): void;
}

export function createTeam(options: TeamOptions): Team {
  const { clock, generateId, transcript } = options;
  const cast = options.cast ?? TEAM;
  const wires = new Map<string, Wire>();
  const senders = new Map<string, (message: CorrelateMessage) => void>();
  for (const script of cast) {
    const wire = createWire(script.name, clock);
    wires.set(script.name, wire);
    senders.set(script.name, wireSender(wire, LEAD, transcript));
  }
  const members = cast.map(
    (s): Member => ({ name: s.name, role: s.role, task: s.task, status: 'working', note: s.task }),
  );
  const member = (name: string): Member | undefined => members.find((m) => m.name === name);
  const ignored: Refusal[] = [];
  const log = (text: string): void => transcript.entry(LEAD, text);
  let lastSent: string | undefined;

  const lead = createCorrelator({
    self: LEAD,
    protocols: PROTOCOLS,
    clock,
    generateId,
    timeoutMs: options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS,
    retainSettledMs: RETAIN_SETTLED_MS,
    send(message) {
      const send = senders.get(message.to);
      if (send === undefined) throw new Error(`No wire to "${message.to}"`); // the request fails with send_failed
      send(message);
      if (message.kind === 'request') lastSent = message.request_id;
    },
  });
  const teammates = new Map<string, Teammate>();
  for (const [name, wire] of wires) {
    wire.endpoint(LEAD).listen((message) => lead.receive(message));
    const script = cast.find((s) => s.name === name) as TeammateScript; // the wires were made from the cast
    teammates.set(name, createTeammate({ script, wire, clock, generateId, transcript }));
  }

  /** Waits until no teammate's model turn is still running through its tool gate. */
  const idle = (): Promise<unknown> => Promise.all([...teammates.values()].map((t) => t.idle()));

  lead.on('settled', ({ request: r }) => {
    const who = r.role === 'requester' ? r.to : r.from;
    log(`${r.id} ${r.protocol} (${who}) → ${r.state}${r.reason === undefined ? '' : `: ${r.reason}`}`);
  });

  // The shutdown handler: what the lead does when a shutdown request settles, whichever way.
  lead.handle(shutdownProtocol, (r) => {
    const m = member(r.to);
    if (m === undefined) return;
    switch (r.state) {
      case 'approved':
        m.status = 'shut_down';
        m.note = `approved ${r.id}: ${r.reason ?? ''}`;
        log(`handler: ${m.name} is off the team`);
        return;
      case 'rejected':
        m.status = 'working';
        m.note = `refused ${r.id}: ${r.reason ?? ''}`;
        log(`handler: ${m.name} keeps working`);
        return;
      case 'expired':
        m.status = 'unresponsive';
        m.note = `no answer to ${r.id} by ${clockTime(r.deadlineAt)}`;
        log(`handler: ${m.name} is marked unresponsive`);
        return;
      default:
        m.status = 'working';
        m.note = `${r.id} ${r.state}`;
        log(`handler: ${m.name} keeps working (${r.id} ${r.state})`);
    }
  });

  lead.on('request', ({ request: r }) => {
    if (r.protocol !== planApprovalProtocol.name) {
      // Only the lead asks for shutdowns; a teammate asking the lead is answered no, never ignored.
      lead.respond(r.id, { approve: false, reason: 'the lead shuts down last' });
      return;
    }
    const m = member(r.from);
    if (m !== undefined) m.note = `plan ${r.id} awaits review`;
    log(`plan ${r.id} from ${r.from} awaits review: approve ${r.id} | reject ${r.id} <feedback>`);
  });

  lead.on('refused', (refusal) => {
    ignored.push(refusal);
    const id = refusal.requestId ?? '?';
    log(
      `✗ refused ${refusal.kind ?? 'message'} ${id} from ${refusal.from ?? '?'}: ${refusal.code} — ${refusal.message}`,
    );
    const tracked = refusal.requestId === undefined ? undefined : lead.get(refusal.requestId);
    if (refusal.code === 'late' && tracked !== undefined && tracked.settledAt !== undefined) {
      const after = Math.round((clock.now() - tracked.settledAt) / 1000);
      log(
        `reported: ${refusal.from}'s reply came ${after} s after ${id} expired; ignored, ${id} stays expired`,
      );
      const m = member(refusal.from ?? '');
      if (m !== undefined) m.note = `${m.note}; a late reply was ignored`;
    } else if (refusal.code === 'wrong_sender' && tracked !== undefined) {
      log(`reported: ${id} was sent to ${tracked.to}; it stays ${tracked.state}`);
    }
  });

  /** The host's own "no" to a command: returned to the caller, nothing is sent or logged. */
  function refused(code: Refused['code'], message: string): Refused {
    return { ok: false, code, message };
  }

  return {
    lead,
    clock,
    members,
    ignored,
    teammate: (name) => teammates.get(name),
    wire: (name) => wires.get(name),

    async requestShutdown(name, reason = 'the work is done; please shut down gracefully') {
      const m = member(name);
      if (m === undefined) return refused('unknown_teammate', `no teammate "${name}"`);
      if (m.status === 'shut_down') return refused('already_shut_down', `${name} has already shut down`);
      if (m.status === 'shutdown_pending')
        return refused('already_pending', `a shutdown request to ${name} is still pending`);
      lastSent = undefined;
      const reply = lead.request(shutdownProtocol, { to: name, payload: { reason } });
      // The request goes on the wire synchronously (no store): its request_id is what was sent.
      const requestId = lastSent;
      if (requestId === undefined) {
        // Refused before sending (a payload that fails the schema): the promise says why.
        return reply.then(
          () => refused('invalid_payload', 'not sent'),
          (error: unknown) => refused(codeOf(error), (error as Error).message), // as above
        );
      }
      reply.catch(() => {}); // expiry and close are reported by the handler; callers may still await it
      m.status = 'shutdown_pending';
      m.note = `shutdown ${requestId} pending`;
      return { ok: true, requestId, reply };
    },

    review(requestId, approve, feedback) {
      const request = lead.get(requestId);
      if (request !== undefined && (request.protocol !== 'plan_approval' || request.role !== 'responder'))
        return refused('not_a_plan', `${requestId} is a ${request.protocol} request, not a plan to review`);
      try {
        const done = lead.respond(requestId, {
          approve,
          ...(feedback === undefined || feedback === '' ? {} : { reason: feedback }),
        });
        const m = member(done.from);
        if (m !== undefined) m.note = `plan ${done.id} ${done.state}${feedback ? `: ${feedback}` : ''}`;
        return { ok: true, request: done };
      } catch (error) {
        return refused(codeOf(error), (error as Error).message); // codeOf rethrows what is not a CorrelateError
      }
    },

    cancel: (requestId) => lead.cancel(requestId, 'withdrawn by the lead'),

    forge(from, requestId, response) {
      const teammate = teammates.get(from);
      if (teammate === undefined) return refused('unknown_teammate', `no teammate "${from}"`);
      const request = lead.get(requestId);
      teammate.sendRaw({
        kind: 'response',
        request_id: requestId,
        protocol: request?.protocol ?? shutdownProtocol.name,
        from,
        to: LEAD,
        response,
      });
      return undefined;
    },

    startWork: (name) => teammates.get(name)?.startWork(),
    log,
    deliver: () => deliverAll(wires.values(), idle),

    async advance(ms) {
      const until = clock.now() + ms;
      await deliverAll(wires.values(), idle);
      for (let next = clock.nextTimerAt(); next !== undefined && next <= until; next = clock.nextTimerAt()) {
        clock.advanceTo(next);
        await deliverAll(wires.values(), idle);
      }
      clock.advanceTo(until);
      await deliverAll(wires.values(), idle);
    },

    view: () => renderTeamView({ now: clock.now(), members, requests: lead.list(), stats: lead.stats() }),

    close() {
      for (const teammate of teammates.values()) teammate.close();
      lead.close();
    },
  };
}

/** The code of an error from `@parley/correlate`; anything else is a bug and is thrown on. */
function codeOf(error: unknown): CorrelateErrorCode {
  if (isParleyError(error, ...CORRELATE_ERROR_CODES)) return error.code;
  throw error;
}
