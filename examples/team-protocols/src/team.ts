// The lead's host: wiring only. The lead's correlator (@parley/correlate) and its team lead
// (@parley/protocol-tools: roster, shutdown handshake, plan review, trackers) are the protocol; this
// file connects them to the hub, the teammates and the transcript, and turns what they report into
// lines. Anything a peer gets wrong (a late reply, a reply from the wrong teammate) is refused by
// the correlator as data; the host only reports it.
import type { IdGenerator, ManualClock } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  type Refusal,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import {
  createTeamLead,
  type ShutdownRequested,
  type TeamLead,
  type TeammateRecord,
  type TeamRefusal,
} from '@parley/protocol-tools';
import { clockTime, type Transcript } from '@parley/testing';
import { TEAM, type TeammateScript } from './cast.js';
import { renderTeamView } from './team-view.js';
import { createTeammate, PROTOCOLS, type Teammate } from './teammate.js';
import { createHub, type Hub, hubSender, LEAD } from './wire.js';

export const SHUTDOWN_TIMEOUT_MS = 30_000;
/** Settled requests stay in the lead's trackers this long, for the `/team` view and audit. */
export const RETAIN_SETTLED_MS = 60 * 60_000;

/** A teammate as the `/team` view shows it. */
export interface Member extends Pick<TeammateRecord, 'name' | 'status'> {
  readonly role: string;
  readonly task: string;
  readonly note: string;
}

export interface TeamOptions {
  readonly clock: ManualClock;
  readonly generateId: IdGenerator;
  readonly transcript: Transcript;
  readonly cast?: readonly TeammateScript[];
}

export interface Team {
  /** The lead's correlator. */
  readonly lead: Correlator;
  /** The lead's side of the protocols over it. */
  readonly roster: TeamLead;
  readonly clock: ManualClock;
  readonly hub: Hub;
  readonly members: readonly Member[];
  teammate(name: string): Teammate | undefined;
  /** Replies the lead's correlator refused (late, wrong sender…), in order. */
  readonly ignored: readonly Refusal[];
  requestShutdown(name: string, reason?: string): Promise<ShutdownRequested | TeamRefusal>;
  review: TeamLead['review'];
  /** The lead withdraws a pending request it sent; false when it was not pending. */
  cancel(requestId: string): Promise<boolean>;
  /** A teammate answers a request that was never sent to it, straight on the hub (misbehaviour). */
  forge(
    from: string,
    requestId: string,
    response: { approve: boolean; reason?: string },
  ): TeamRefusal | undefined;
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
  const hub = createHub(
    cast.map((s) => s.name),
    clock,
  );
  const log = (text: string): void => transcript.entry(LEAD, text);
  const lead = createCorrelator({
    self: LEAD,
    protocols: PROTOCOLS,
    clock,
    generateId,
    timeoutMs: SHUTDOWN_TIMEOUT_MS,
    retainSettledMs: RETAIN_SETTLED_MS,
    send: hubSender(hub, LEAD, transcript),
  });
  hub.endpoint(LEAD).listen((message) => lead.receive(message));
  const roster = createTeamLead({ correlator: lead, teammates: cast.map((s) => s.name) });
  const teammates = new Map<string, Teammate>(
    cast.map((script) => [script.name, createTeammate({ script, hub, clock, generateId, transcript })]),
  );
  const ignored: Refusal[] = [];

  lead.on('settled', ({ request: r }) => {
    const who = r.role === 'requester' ? r.to : r.from;
    log(`${r.id} ${r.protocol} (${who}) → ${r.state}${r.reason === undefined ? '' : `: ${r.reason}`}`);
  });
  roster.on('status', ({ teammate: t, request: r }) => {
    const what = {
      shut_down: 'is off the team',
      unresponsive: 'is marked unresponsive',
      working: r.state === 'rejected' ? 'keeps working' : `keeps working (${r.id} ${r.state})`,
      shutdown_pending: 'is asked again',
    }[t.status];
    log(`handler: ${t.name} ${what}`);
  });
  roster.on('plan', ({ request: r }) =>
    log(`plan ${r.id} from ${r.from} awaits review: approve ${r.id} | reject ${r.id} <feedback>`),
  );
  lead.on('refused', (refusal) => {
    ignored.push(refusal);
    const id = refusal.requestId ?? '?';
    log(
      `✗ refused ${refusal.kind ?? 'message'} ${id} from ${refusal.from ?? '?'}: ${refusal.code} — ${refusal.message}`,
    );
    const tracked = lead.get(id);
    if (refusal.code === 'late' && tracked?.settledAt !== undefined) {
      const after = Math.round((clock.now() - tracked.settledAt) / 1000);
      log(
        `reported: ${refusal.from}'s reply came ${after} s after ${id} expired; ignored, ${id} stays expired`,
      );
    } else if (refusal.code === 'wrong_sender' && tracked !== undefined) {
      log(`reported: ${id} was sent to ${tracked.to}; it stays ${tracked.state}`);
    }
  });

  const idle = (): Promise<unknown> => Promise.all([...teammates.values()].map((t) => t.idle()));
  /** Delivers everything waiting (answers included) until quiet, letting model turns finish first. */
  async function deliver(): Promise<void> {
    do await idle();
    while ((await hub.flush()) > 0);
  }

  return {
    lead,
    roster,
    clock,
    hub,
    get members() {
      return members();
    },
    ignored,
    teammate: (name) => teammates.get(name),
    requestShutdown: (name, reason = 'the work is done; please shut down gracefully') =>
      roster.requestShutdown(name, reason),
    review: (requestId, approve, feedback) => roster.review(requestId, approve, feedback),
    cancel: (requestId) => lead.cancel(requestId, 'withdrawn by the lead'),

    forge(from, requestId, response) {
      const teammate = teammates.get(from);
      if (teammate === undefined)
        return { ok: false, code: 'unknown_teammate', message: `No teammate "${from}"` };
      const protocol = lead.get(requestId)?.protocol ?? shutdownProtocol.name;
      const message: CorrelateMessage = {
        kind: 'response',
        request_id: requestId,
        protocol,
        from,
        to: LEAD,
        response,
      };
      teammate.sendRaw(message);
      return undefined;
    },

    startWork: (name) => teammates.get(name)?.startWork(),
    log,
    deliver,
    async advance(ms) {
      const until = clock.now() + ms;
      await deliver();
      for (let next = clock.nextTimerAt(); next !== undefined && next <= until; next = clock.nextTimerAt()) {
        clock.advanceTo(next);
        await deliver();
      }
      clock.advanceTo(until);
      await deliver();
    },
    view: () =>
      renderTeamView({ now: clock.now(), members: members(), requests: lead.list(), stats: lead.stats() }),

    close() {
      for (const teammate of teammates.values()) teammate.close();
      roster.close();
      lead.close();
    },
  };

  function members(): Member[] {
    return roster.teammates().map((t): Member => {
      const script = cast.find((s) => s.name === t.name) as TeammateScript; // the roster is the cast
      return { ...t, role: script.role, task: script.task, note: noteOf(t, script.task) };
    });
  }
}

/** The roster's note on a teammate, from the latest request between them. */
function noteOf(t: TeammateRecord, task: string): string {
  const r: TrackedRequest | undefined = t.last;
  if (r === undefined) return task;
  const reason = r.reason === undefined || r.reason === '' ? '' : `: ${r.reason}`;
  if (r.protocol !== shutdownProtocol.name)
    return r.state === 'pending' ? `plan ${r.id} awaits review` : `plan ${r.id} ${r.state}${reason}`;
  switch (r.state) {
    case 'pending':
      return `shutdown ${r.id} pending`;
    case 'approved':
      return `approved ${r.id}${reason}`;
    case 'rejected':
      return `refused ${r.id}${reason}`;
    case 'expired':
      return `no answer to ${r.id} by ${clockTime(r.deadlineAt)}${t.lateReplies > 0 ? '; a late reply was ignored' : ''}`;
    default:
      return `${r.id} ${r.state}`;
  }
}
