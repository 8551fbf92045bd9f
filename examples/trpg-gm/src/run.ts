// Runs the scripted scenarios on one campaign with an injected clock, turn ids and output sink, and
// returns the final campaign, state, turn log and transcript, plus what each scenario left behind
// (state and ledger), so a test can check that only executed tool calls changed the state.
import type { Proposal } from '@parley/conflict';
import type { ManualClock } from '@parley/core';
import { createScriptedModel, type ScriptedModel } from '@parley/testing';
import type { AdvancePolicy, Campaign, SummaryState, TurnLog } from './campaign.js';
import type { GmRequest } from './context.js';
import type { LedgerEntry } from './core.js';
import { describeProgress } from './milestone.js';
import { SCENARIOS, type Scenario, type ScenarioStep } from './scenarios.js';
import { createGmSession, type GmSession } from './session.js';
import { createTranscript, describeTurn, type Transcript } from './transcript.js';
import type { TurnResult } from './turn.js';
import type { GameState } from './world.js';

export interface RunOptions {
  readonly clock: ManualClock;
  /** Turn ids; `turn_1`, `turn_2`… keep the transcript readable. */
  readonly generateTurnId?: () => string;
  readonly output?: (line: string) => void;
  readonly scenarios?: readonly Scenario[];
  readonly maxRetries?: number;
  readonly advancePolicy?: AdvancePolicy;
  /** Answers the GM requests; a scripted model fed from each turn's drafts by default. */
  readonly model?: ScriptedModel<Proposal, GmRequest>;
}

/** What one scenario left behind. */
export interface ScenarioReport {
  readonly name: string;
  readonly turns: readonly TurnResult[];
  readonly state: GameState;
  readonly ledger: readonly LedgerEntry[];
  readonly goal: Campaign['goal'];
}

export interface RunResult {
  readonly campaign: Campaign;
  readonly state: GameState;
  readonly turnLog: readonly TurnLog[];
  readonly summary: SummaryState;
  readonly ledger: readonly LedgerEntry[];
  readonly scenarios: readonly ScenarioReport[];
  readonly transcript: readonly string[];
  readonly model: ScriptedModel<Proposal, GmRequest>;
  /** Refusals of player commands (rollback, undo, settings), in order. */
  readonly refusals: readonly { readonly command: string; readonly code: string }[];
}

const STEP_MS = 45_000;

export async function runTrpgSession(options: RunOptions): Promise<RunResult> {
  const { clock } = options;
  const transcript = createTranscript(clock, options.output);
  const model = options.model ?? createScriptedModel<Proposal, GmRequest>({ clock, name: 'GM model' });
  let n = 0;
  const session = await createGmSession({
    clock,
    model,
    generateTurnId: options.generateTurnId ?? (() => `turn_${++n}`),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.advancePolicy === undefined ? {} : { advancePolicy: options.advancePolicy }),
  });
  const stopSettings = session.settings.on('changed', ({ changes, version }) => {
    const list = changes.map((c) => `${c.key}: ${JSON.stringify(c.previous)} → ${JSON.stringify(c.value)}`);
    transcript.log(`   ⚙ settings changed (campaign layer v${version}): ${list.join(', ')}`);
  });
  const refusals: { command: string; code: string }[] = [];
  const reports: ScenarioReport[] = [];
  try {
    transcript.log(
      `Campaign "${session.campaign.title}" · party: Aria (ranger), Bram (fighter) · hidden goal set`,
    );
    for (const scenario of options.scenarios ?? SCENARIOS) {
      transcript.log(`\n=== ${scenario.title}`);
      const turns: TurnResult[] = [];
      for (const step of scenario.steps) {
        clock.advance(STEP_MS);
        const result = await runStep(session, model, step, transcript, refusals);
        if (result !== undefined) turns.push(result);
      }
      reports.push({
        name: scenario.name,
        turns,
        state: structuredClone(session.state),
        ledger: structuredClone([...session.ledger]),
        goal: { ...session.campaign.goal },
      });
      transcript.log(`   ⇒ after the scenario: ${describeState(session)}`);
    }
    return {
      campaign: session.campaign,
      state: session.state,
      turnLog: session.turnLog,
      summary: session.summary,
      ledger: session.ledger,
      scenarios: reports,
      transcript: transcript.lines,
      model,
      refusals,
    };
  } finally {
    stopSettings();
    await session.close();
  }
}

async function runStep(
  session: GmSession,
  model: ScriptedModel<Proposal, GmRequest>,
  step: ScenarioStep,
  transcript: Transcript,
  refusals: { command: string; code: string }[],
): Promise<TurnResult | undefined> {
  const who = (id: string): string => session.state.characters[id]?.name ?? id;
  switch (step.kind) {
    case 'host':
      transcript.log(`[host] ${await step.act(session)}`);
      return undefined;
    case 'dialog': {
      const result = await session.selectDialogType(step.type);
      transcript.log(
        `${who(step.actor_id)} picks the dialog type "${step.type}": ${result.ok ? 'saved for the next turn' : `refused (${result.code})`}`,
      );
      if (!result.ok) refusals.push({ command: `dialog ${step.type}`, code: result.code });
      return undefined;
    }
    case 'rollback': {
      const target =
        session.turnLog.find((entry) => entry.turn === step.to_turn)?.turn_id ?? `turn ${step.to_turn}`;
      const result = await session.rollback(target);
      if (result.ok) {
        transcript.log(
          `${who(step.actor_id)}: /rollback ${target} → state of turn ${step.to_turn} restored (from ${result.from_turn_id}; undo possible until the next command)`,
        );
      } else {
        transcript.log(
          `${who(step.actor_id)}: /rollback ${target} → refused (${result.code}): ${result.reason}`,
        );
        refusals.push({ command: `rollback ${target}`, code: result.code });
      }
      transcript.log(`   state: ${describeState(session)}`);
      return undefined;
    }
    case 'undo': {
      const result = await session.undo();
      if (result.ok) transcript.log(`${who(step.actor_id)}: /undo → back to ${result.restored_turn_id}`);
      else {
        transcript.log(`${who(step.actor_id)}: /undo → refused (${result.code}): ${result.reason}`);
        refusals.push({ command: 'undo', code: result.code });
      }
      transcript.log(`   state: ${describeState(session)}`);
      return undefined;
    }
    case 'turn': {
      const [first, ...rest] = step.drafts;
      const hook = step.whileThinking;
      if (first !== undefined && hook !== undefined) {
        model.enqueue({
          respond: async () => {
            transcript.log(`[meanwhile] ${await hook(session)}`);
            return first;
          },
        });
        model.reply(...rest);
      } else model.reply(...step.drafts);
      const result = await session.turn({ actor_id: step.actor_id, user_input: step.user_input });
      if (result.ok) transcript.log(describeTurn(result, who).join('\n'));
      else
        transcript.log(
          `${who(step.actor_id)}: ${step.user_input} → refused (${result.code}): ${result.reason}`,
        );
      return result;
    }
  }
}

export function describeState(session: GmSession): string {
  const { state, campaign } = session;
  const party = campaign.selected.party_character_ids.map((id) => {
    const c = state.characters[id];
    return `${c?.name} ${c?.hp.current}/${c?.hp.max} HP @${state.positions[id]}`;
  });
  const goblin = state.characters['npc_goblin'];
  return `${party.join(', ')}; Snikt ${goblin?.hp.current}/${goblin?.hp.max} HP · phase ${session.phase} · milestone ${campaign.milestone.value} (${describeProgress(campaign.milestone)}) · turn ${session.turnLog.at(-1)?.turn ?? 0}`;
}
