// Runs the scripted scenarios on one campaign with an injected clock, turn ids and output sink, and
// returns the final campaign, state, turn log and transcript, plus what each scenario left behind
// (state and ledger), so a test can check that only executed tool calls changed the state.
import type { Proposal } from '@parley/conflict';
import type { ManualClock } from '@parley/core';
import { createScriptedModel, createTranscript, type ScriptedModel } from '@parley/testing';
import type { AdvancePolicy, Campaign, SummaryState, TurnLog } from './campaign.js';
import type { GmRequest } from './context.js';
import type { LedgerEntry } from './core.js';
import { createGoalModel } from './fixtures.js';
import type { GoalRequest } from './goal.js';
import { SCENARIOS, type Scenario, type ScenarioStep } from './scenarios.js';
import { createGmSession, type GmSession } from './session.js';
import { describeState, describeTurn } from './transcript.js';
import type { TurnResult } from './turn.js';
import type { GameState } from './world.js';

export interface RunOptions {
  readonly clock: ManualClock;
  /** Turn ids; `turn_1`, `turn_2`… keep the transcript readable. */
  readonly generateTurnId?: () => string;
  readonly output?: (line: string) => void;
  readonly scenarios?: readonly Scenario[];
  /** Scenarios played in full but summed up in one line each (the tour's shorter transcript). */
  readonly quiet?: readonly string[];
  readonly maxRetries?: number;
  readonly advancePolicy?: AdvancePolicy;
  /** Answers the GM requests; a scripted model fed from each turn's drafts by default. */
  readonly model?: ScriptedModel<Proposal, GmRequest>;
  /** Writes the ultimate goal at campaign creation; the scripted goal model of the fixtures by default. */
  readonly goalModel?: ScriptedModel<unknown, GoalRequest>;
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
  readonly goalModel: ScriptedModel<unknown, GoalRequest>;
  /** Refusals of player commands (rollback, undo, settings), in order. */
  readonly refusals: readonly { readonly command: string; readonly code: string }[];
}

type Say = (text: string) => void;
type Refusals = { command: string; code: string }[];

export async function runTrpgSession(options: RunOptions): Promise<RunResult> {
  const { clock } = options;
  const transcript = createTranscript({ clock, ...(options.output ? { output: options.output } : {}) });
  // every line stamped with the clock; blank lines stay blank
  const say: Say = (text) => {
    for (const line of text.split('\n')) line === '' ? transcript.note('') : transcript.log(line);
  };
  const model = options.model ?? createScriptedModel<Proposal, GmRequest>({ clock, name: 'GM model' });
  const goalModel = options.goalModel ?? createGoalModel(clock);
  let n = 0;
  const session = await createGmSession({
    clock,
    model,
    goalModel,
    generateTurnId: options.generateTurnId ?? (() => `turn_${++n}`),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.advancePolicy === undefined ? {} : { advancePolicy: options.advancePolicy }),
  });
  const stopSettings = session.settings.on('changed', ({ changes, version }) => {
    const list = changes.map((c) => `${c.key}: ${JSON.stringify(c.previous)} → ${JSON.stringify(c.value)}`);
    say(`   ⚙ settings changed (campaign layer v${version}): ${list.join(', ')}`);
  });
  const refusals: Refusals = [];
  const scenarios: ScenarioReport[] = [];
  try {
    say(`Campaign "${session.campaign.title}" · party: Aria (ranger), Bram (fighter)`);
    for (const call of goalModel.calls) say(describeGoalCall(call.request));
    const { goal } = session.campaign;
    say(
      `   ★ ultimate goal fixed for the campaign (${goal.is_hidden ? 'hidden from the players' : 'shown'}; ${goal.key_terms.length} give-away terms guarded); milestone prompts steer toward it`,
    );
    for (const scenario of options.scenarios ?? SCENARIOS) {
      const quiet = options.quiet?.includes(scenario.name) === true;
      say(`\n=== ${scenario.title}${quiet ? ' (played; `npm run example trpg-gm` shows it)' : ''}`);
      const turns: TurnResult[] = [];
      for (const step of scenario.steps) {
        clock.advance(45_000);
        const result = await runStep(session, model, step, quiet ? () => {} : say, refusals);
        if (result !== undefined) turns.push(result);
      }
      const { state, ledger, campaign } = session;
      scenarios.push({
        name: scenario.name,
        turns,
        ...structuredClone({ state, ledger: [...ledger] }),
        goal: { ...campaign.goal },
      });
      say(`   ⇒ after the scenario: ${describeState(session)}`);
    }
    const { campaign, state, turnLog, summary, ledger } = session;
    return {
      campaign,
      state,
      turnLog,
      summary,
      ledger,
      scenarios,
      transcript: transcript.lines,
      model,
      goalModel,
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
  say: Say,
  refusals: Refusals,
): Promise<TurnResult | undefined> {
  const who = (id: string): string => session.state.characters[id]?.name ?? id;
  const refused = (command: string, result: { code: string; reason?: string }): string => {
    refusals.push({ command, code: result.code });
    return `refused (${result.code})${result.reason === undefined ? '' : `: ${result.reason}`}`;
  };
  switch (step.kind) {
    case 'host':
      say(`[host] ${await step.act(session)}`);
      return undefined;
    case 'dialog': {
      const result = await session.selectDialogType(step.type);
      const outcome = result.ok ? 'saved for the next turn' : refused(`dialog ${step.type}`, result);
      say(`${who(step.actor_id)} picks the dialog type "${step.type}": ${outcome}`);
      return undefined;
    }
    case 'rollback': {
      const target = session.turnLog.find((t) => t.turn === step.to_turn)?.turn_id ?? `turn ${step.to_turn}`;
      const result = await session.rollback(target);
      const said = result.ok
        ? `state of turn ${step.to_turn} restored (from ${result.from_turn_id}; undo possible until the next command)`
        : refused(`rollback ${target}`, result);
      say(`${who(step.actor_id)}: /rollback ${target} → ${said}\n   state: ${describeState(session)}`);
      return undefined;
    }
    case 'undo': {
      const result = await session.undo();
      const said = result.ok ? `back to ${result.restored_turn_id}` : refused('undo', result);
      say(`${who(step.actor_id)}: /undo → ${said}\n   state: ${describeState(session)}`);
      return undefined;
    }
    case 'turn': {
      const [first, ...rest] = step.drafts;
      const hook = step.whileThinking;
      if (first !== undefined && hook !== undefined) {
        model.enqueue({
          respond: async () => {
            say(`[meanwhile] ${await hook(session)}`);
            return first;
          },
        });
        model.reply(...rest);
      } else model.reply(...step.drafts);
      const result = await session.turn({ actor_id: step.actor_id, user_input: step.user_input });
      say(
        result.ok
          ? describeTurn(result, who).join('\n')
          : `${who(step.actor_id)}: ${step.user_input} → refused (${result.code}): ${result.reason}`,
      );
      return result;
    }
  }
}

/** One request to the goal model, as the transcript shows it (the goal itself stays hidden). */
function describeGoalCall(request: GoalRequest): string {
  const { world_background, map, characters } = request.inputs;
  return (
    `   goal model ← world background (${world_background.length} chars), map (${map.areas.length} areas, ${map.paths.length} paths), ` +
    `backgrounds of ${characters.map((c) => c.name).join(', ')}${request.attempt > 1 ? ` · attempt ${request.attempt}` : ''}`
  );
}
