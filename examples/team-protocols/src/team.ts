// The lead's host, wiring only: the lead's correlator (@parley/correlate) and team lead
// (@parley/protocol-tools: roster, shutdowns, plan review, trackers) on the hub, the teammates, and
// what they report written to the transcript. What a peer gets wrong is refused as data, and reported.
import type { IdGenerator, ManualClock } from '@parley/core';
import {
  type Correlator,
  createCorrelator,
  type CorrelateRefusal,
  shutdownProtocol,
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
export const RETAIN_SETTLED_MS = 60 * 60_000; // settled requests stay in the `/team` view an hour

/** Why a teammate cannot be spawned: no one of that name in the cast, or already on the team. */
export interface SpawnRefusal {
  readonly ok: false;
  readonly code: 'unknown_teammate' | 'already_spawned';
  readonly message: string;
}

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
  /**
   * Who is on the team from the start: the whole cast (by default), or nobody — then the cast are
   * the teammates the lead can spawn by name (`spawn`), as the document's try-it prompts do.
   */
  readonly spawned?: 'all' | 'none';
}

export interface Team {
  readonly lead: Correlator; // the lead's correlator
  readonly roster: TeamLead; // the lead's side of the protocols over it
  readonly clock: ManualClock;
  readonly hub: Hub;
  readonly members: readonly Member[];
  readonly ignored: readonly CorrelateRefusal[]; // replies the lead's correlator refused, in order
  teammate(name: string): Teammate | undefined;
  /** Spawns a teammate of the cast by name: it joins the hub and starts its task (a plan, if it has one). */
  spawn(name: string): { readonly ok: true; readonly script: TeammateScript } | SpawnRefusal;
  /** The teammates spawned so far and not shut down: who the lead may send requests to. */
  active(): string[];
  /** Also waits for this party's model turns when delivering (the lead's own agent). */
  watch(idle: () => Promise<void>): void;
  requestShutdown(name: string, reason?: string): Promise<ShutdownRequested | TeamRefusal>;
  review: TeamLead['review'];
  cancel(requestId: string): Promise<boolean>;
  /** A teammate answers a request that was never sent to it, straight on the hub (misbehaviour). */
  forge(
    from: string,
    requestId: string,
    response: { approve: boolean; reason?: string },
  ): TeamRefusal | undefined;
  startWork(name: string): void;
  log(text: string): void;
  /** Delivers every waiting message; `advance` also lets `ms` pass, delivering after each timer. */
  deliver(): Promise<void>;
  advance(ms: number): Promise<void>;
  view(): string; // the `/team` status view
  close(): void;
}

export function createTeam(options: TeamOptions): Team {
  const { clock, generateId, transcript } = options;
  const cast = options.cast ?? TEAM;
  const names = cast.map((s) => s.name);
  const hub = createHub(names, clock);
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
  const roster = createTeamLead({ correlator: lead, teammates: names });
  const teammates = new Map<string, Teammate>();
  const join = (script: TeammateScript): Teammate => {
    const teammate = createTeammate({ script, hub, clock, generateId, transcript });
    teammates.set(script.name, teammate);
    return teammate;
  };
  if (options.spawned !== 'none') for (const script of cast) join(script);
  const watched: (() => Promise<void>)[] = [];
  const ignored: CorrelateRefusal[] = [];

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
    const { requestId: id = '?', from = '?', code } = refusal;
    log(`✗ refused ${refusal.kind ?? 'message'} ${id} from ${from}: ${code} — ${refusal.message}`);
    const r = lead.get(id);
    if (code === 'late' && r?.settledAt !== undefined) {
      const after = `${Math.round((clock.now() - r.settledAt) / 1000)} s`;
      log(`reported: ${from}'s reply came ${after} after ${id} expired; ignored, ${id} stays expired`);
    } else if (code === 'wrong_sender' && r !== undefined)
      log(`reported: ${id} was sent to ${r.to}; it stays ${r.state}`);
  });

  const idle = (): Promise<unknown> =>
    Promise.all([...[...teammates.values()].map((t) => t.idle()), ...watched.map((w) => w())]);
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
    spawn(name) {
      const script = cast.find((s) => s.name === name);
      if (script === undefined)
        return { ok: false, code: 'unknown_teammate', message: `No one called "${name}" to spawn` };
      if (teammates.has(name))
        return { ok: false, code: 'already_spawned', message: `${name} is already on the team` };
      join(script).startWork();
      log(`spawned ${name} (${script.role}): ${script.task}`);
      return { ok: true, script };
    },
    active: () => [...teammates.values()].filter((t) => !t.exited).map((t) => t.name),
    watch: (w) => void watched.push(w),
    requestShutdown: (name, reason = 'the work is done; please shut down gracefully') =>
      roster.requestShutdown(name, reason),
    review: (requestId, approve, feedback) => roster.review(requestId, approve, feedback),
    cancel: (requestId) => lead.cancel(requestId, 'withdrawn by the lead'),

    forge(from, request_id, response) {
      const teammate = teammates.get(from);
      if (teammate === undefined)
        return { ok: false, code: 'unknown_teammate', message: `No teammate "${from}"` };
      const protocol = lead.get(request_id)?.protocol ?? shutdownProtocol.name;
      teammate.sendRaw({ kind: 'response', request_id, protocol, from, to: LEAD, response });
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
    return roster
      .teammates()
      .filter((t) => teammates.has(t.name))
      .map((t): Member => {
        const script = cast.find((s) => s.name === t.name) as TeammateScript; // the roster is the cast
        return { ...t, role: script.role, task: script.task, note: noteOf(t, script.task) };
      });
  }
}

/** The roster's note on a teammate, from the latest request between them. */
function noteOf({ last: r, lateReplies }: TeammateRecord, task: string): string {
  if (r === undefined) return task;
  const reason = r.reason ? `: ${r.reason}` : '';
  if (r.protocol !== shutdownProtocol.name)
    return `plan ${r.id} ${r.state === 'pending' ? 'awaits review' : r.state + reason}`;
  if (r.state === 'expired')
    return `no answer to ${r.id} by ${clockTime(r.deadlineAt)}${lateReplies > 0 ? '; a late reply was ignored' : ''}`;
  const said = {
    pending: `shutdown ${r.id} pending`,
    approved: `approved ${r.id}${reason}`,
    rejected: `refused ${r.id}${reason}`,
  };
  return said[r.state as keyof typeof said] ?? `${r.id} ${r.state}`;
}
