// Runs the scripted scenarios with an injected clock, ids and output sink, and returns what really
// happened: the trackers, the `/team` view, the refused replies, every message each wire carried,
// and the transcript. The test drives the example through this function.
import { createSequentialIds, type IdGenerator, type ManualClock } from '@parley/core';
import type { CorrelateMessage, CorrelatorStats, Refusal } from '@parley/correlate';
import type { TeamTrackers } from '@parley/protocol-tools';
import { createFakeClock, createTranscript, type TransportRecord } from '@parley/testing';
import type { TeammateScript } from './cast.js';
import { SCENARIOS, type ScenarioName } from './scenarios.js';
import { createTeam, type Member } from './team.js';

/** 2026-04-15 09:00:00 UTC: where simulated time starts by default. */
export const START_AT = Date.UTC(2026, 3, 15, 9, 0, 0);

export interface RunOptions {
  /** Simulated time; a fake clock at {@link START_AT} by default. */
  readonly clock?: ManualClock;
  /** request_ids of every party; `req_1`, `req_2`… by default. */
  readonly generateId?: IdGenerator;
  /** Which scenarios, in order; all by default. */
  readonly scenarios?: readonly ScenarioName[];
  /** The teammates; the cast of `cast.ts` by default. */
  readonly cast?: readonly TeammateScript[];
  /** Receives each transcript line as it is written. */
  readonly output?: (line: string) => void;
}

export interface RunResult {
  /** The seed's trackers, read from the lead's correlator at the end. */
  readonly trackers: TeamTrackers;
  /** The final `/team` view. */
  readonly view: string;
  /** The lead's roster at the end. */
  readonly members: readonly Readonly<Member>[];
  /** Replies the lead refused, in order. */
  readonly ignored: readonly Refusal[];
  readonly stats: CorrelatorStats;
  /** Every message to or from each teammate, with its fate and what the receiver returned. */
  readonly wires: Readonly<Record<string, readonly TransportRecord<CorrelateMessage, string>[]>>;
  /** Teammates that approved a shutdown and exited. */
  readonly exited: readonly string[];
  readonly lines: readonly string[];
  /** Timers left on the clock after everything closed (0 when nothing leaks). */
  readonly pendingTimers: number;
}

export async function runTeamProtocols(options: RunOptions = {}): Promise<RunResult> {
  const clock = options.clock ?? createFakeClock({ now: START_AT });
  const generateId = options.generateId ?? createSequentialIds('req_');
  const transcript = createTranscript({
    clock,
    ...(options.output === undefined ? {} : { output: options.output }),
  });
  const team = createTeam({ clock, generateId, transcript, ...(options.cast ? { cast: options.cast } : {}) });
  const names = options.scenarios ?? SCENARIOS.map((s) => s.name);
  try {
    for (const [index, name] of names.entries()) {
      const scenario = SCENARIOS.find((s) => s.name === name);
      if (scenario === undefined) throw new Error(`Unknown scenario "${name}"`);
      transcript.note(`━━ ${index + 1}. ${scenario.name}: ${scenario.title}`);
      await scenario.run(team);
      transcript.note('');
    }
    const view = team.view();
    transcript.note(view);
    const result = {
      trackers: team.roster.trackers(),
      view,
      members: team.members.map((m) => ({ ...m })),
      ignored: [...team.ignored],
      stats: team.lead.stats(),
      wires: Object.fromEntries(
        team.members.map((m) => [
          m.name,
          team.hub.records.filter((r) => r.from === m.name || r.to === m.name),
        ]),
      ),
      exited: team.members.filter((m) => team.teammate(m.name)?.exited).map((m) => m.name),
      lines: transcript.lines,
    };
    team.close();
    return { ...result, pendingTimers: clock.pendingTimers() };
  } finally {
    team.close();
  }
}
