// The lead as a model, end to end: a team where nobody is spawned yet, the lead's scripted model
// driven through the lead's tools, and the try-it prompts of team-protocols.md typed to it in turn.
import { createSequentialIds, type IdGenerator, type ManualClock } from '@parley/core';
import type { TeamTrackers } from '@parley/protocol-tools';
import { createFakeClock, createTranscript } from '@parley/testing';
import { RECRUITS } from './cast.js';
import { createLeadAgent, type LeadModel, scriptedLead, TRY_IT_PROMPTS } from './lead.js';
import { START_AT } from './run.js';
import { createTeam, type Member } from './team.js';

/** Simulated time after each prompt: enough for the lead's and the teammates' thinking and answers. */
export const PROMPT_GAP_MS = 15_000;

export interface LeadRunOptions {
  readonly clock?: ManualClock;
  readonly generateId?: IdGenerator;
  readonly prompts?: readonly string[];
  readonly output?: (line: string) => void;
}

export interface LeadRunResult {
  readonly lines: readonly string[];
  readonly members: readonly Member[];
  readonly trackers: TeamTrackers;
  readonly view: string;
  readonly model: LeadModel;
  readonly exited: readonly string[];
  readonly pendingTimers: number;
}

export async function runLeadModel(options: LeadRunOptions = {}): Promise<LeadRunResult> {
  const clock = options.clock ?? createFakeClock({ now: START_AT });
  const transcript = createTranscript({ clock, ...(options.output ? { output: options.output } : {}) });
  const generateId = options.generateId ?? createSequentialIds('req_');
  const team = createTeam({ clock, generateId, transcript, cast: RECRUITS, spawned: 'none' });
  const lead = createLeadAgent(team, scriptedLead(clock));
  try {
    for (const prompt of options.prompts ?? TRY_IT_PROMPTS) {
      lead.instruct(prompt);
      await team.advance(PROMPT_GAP_MS);
    }
    const view = team.view();
    transcript.note(view);
    const result = {
      lines: transcript.lines,
      members: team.members.map((m) => ({ ...m })),
      trackers: team.roster.trackers(),
      view,
      model: lead.model,
      exited: team.members.filter((m) => team.teammate(m.name)?.exited).map((m) => m.name),
    };
    lead.close();
    team.close();
    return { ...result, pendingTimers: clock.pendingTimers() };
  } finally {
    lead.close();
    team.close();
  }
}
