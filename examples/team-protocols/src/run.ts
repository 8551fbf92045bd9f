// Runs the scripted scenarios on an injected clock, ids and output sink, and returns what really
// happened. The test drives the example through this function.
import { createSequentialIds, type IdGenerator, type ManualClock } from '@parley/core';
import type { CorrelateMessage, CorrelatorStats, CorrelateRefusal } from '@parley/correlate';
import type { TeamTrackers } from '@parley/protocol-tools';
import { createFakeClock, createTranscript, type TransportRecord } from '@parley/testing';
import type { TeammateScript } from './cast.js';
import { SCENARIOS, type ScenarioName } from './scenarios.js';
import { createTeam, type Member } from './team.js';

/** 2026-04-15 09:00:00 UTC: where simulated time starts by default. */
export const START_AT = Date.UTC(2026, 3, 15, 9, 0, 0);

export interface RunOptions {
  readonly clock?: ManualClock; // a fake clock at START_AT by default
  readonly generateId?: IdGenerator; // req_1, req_2… by default
  readonly scenarios?: readonly ScenarioName[]; // all, in order, by default
  readonly cast?: readonly TeammateScript[];
  readonly output?: (line: string) => void; // each transcript line as it is written
  readonly showView?: boolean; // write the final `/team` view to the transcript (true by default)
}

export interface RunResult {
  readonly trackers: TeamTrackers;
  readonly view: string; // the final `/team` view
  readonly members: readonly Readonly<Member>[];
  readonly ignored: readonly CorrelateRefusal[]; // replies the lead refused, in order
  readonly stats: CorrelatorStats;
  /** Every message to or from each teammate, with its fate and what the receiver returned. */
  readonly wires: Readonly<Record<string, readonly TransportRecord<CorrelateMessage, string>[]>>;
  readonly exited: readonly string[]; // teammates that approved a shutdown and exited
  readonly lines: readonly string[];
  readonly pendingTimers: number; // left after everything closed (0 when nothing leaks)
}

export async function runTeamProtocols(options: RunOptions = {}): Promise<RunResult> {
  const clock = options.clock ?? createFakeClock({ now: START_AT });
  const generateId = options.generateId ?? createSequentialIds('req_');
  const transcript = createTranscript({ clock, ...(options.output ? { output: options.output } : {}) });
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
    if (options.showView !== false) transcript.note(view);
    const result = {
      trackers: team.roster.trackers(),
      view,
      members: team.members.map((m) => ({ ...m })),
      ignored: [...team.ignored],
      stats: team.lead.stats(),
      wires: Object.fromEntries(
        team.members.map((m) => [
          m.name,
          team.hub.records.filter((r) => m.name === r.from || m.name === r.to),
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
