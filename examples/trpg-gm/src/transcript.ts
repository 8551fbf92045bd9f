// How a played turn and the session read in the transcript. The time-stamped transcript is
// @parley/testing's `createTranscript`, the conflict loop's attempts are its `describeAttempts`;
// this file only words the GM's tool calls and the table's state.
import type { AppliedAction, ToolCall } from '@parley/conflict';
import { describeAttempts } from '@parley/testing';
import { describeProgress } from './milestone.js';
import type { GmSession } from './session.js';
import type { TurnResult } from './turn.js';

/** The lines of one played turn. */
export function describeTurn(
  result: Extract<TurnResult, { ok: true }>,
  names: (id: string) => string,
): string[] {
  const { log, settings } = result;
  const { dialog_type, milestone_value } = log.assistant_structured;
  const lines = [
    `── turn ${log.turn} (${log.turn_id}) · ${names(log.actor_id)} · dialog: ${dialog_type} · history: ${result.requests[0]?.history_mode ?? '?'} · settings global v${settings.version.global} / campaign v${settings.version.campaign}`,
  ];
  if (result.branchCommitted) {
    lines.push(
      '   (a new command after a rollback: the rollback is now a branch, undo is no longer possible)',
    );
  }
  if (result.milestoneAdvanced) {
    lines.push(`   ★ milestone advanced to ${milestone_value}: the prompt now asks the GM to accelerate`);
  }
  lines.push(`${names(log.actor_id)} (player): ${log.user_input}`);
  lines.push(
    ...describeAttempts(result.outcome, {
      author: 'GM',
      maxRetries: result.maxRetries,
      formatCall,
      formatApplied,
    }),
  );
  lines.push(`GM → players: ${log.assistant_output_text}`);
  if (result.gameOver)
    lines.push('   ☠ a party member died and rules.hp_zero_ends_game is on: the game is over');
  return lines;
}

export function formatCall(call: ToolCall): string {
  const args = call.args ?? {};
  if (call.tool === 'move') return `move(${args['actor_id']} ${args['from_area_id']}→${args['to_area_id']})`;
  if (call.tool === 'hp_delta')
    return `hp_delta(${args['target_character_id']}, ${args['delta']}, "${args['cause']}")`;
  return `${call.tool}(${JSON.stringify(args)})`;
}

function formatApplied(action: AppliedAction): string {
  const r = (action.result ?? {}) as Record<string, unknown>; // what our executors return
  return action.tool === 'move'
    ? `move ${r['actor_id']}: ${r['from_area_id']} → ${r['to_area_id']} (via ${r['path_id']})`
    : `hp_delta ${r['target_character_id']}: HP ${r['hp_before']} → ${r['hp_after']} (${r['alive_state']})`;
}

/** The party, the goblin, the phase, the milestone and the turn, on one line. */
export function describeState(session: GmSession): string {
  const { state, campaign } = session;
  const party = campaign.selected.party_character_ids.map((id) => {
    const c = state.characters[id];
    return `${c?.name} ${c?.hp.current}/${c?.hp.max} HP @${state.positions[id]}`;
  });
  const goblin = state.characters['npc_goblin'];
  return `${party.join(', ')}; Snikt ${goblin?.hp.current}/${goblin?.hp.max} HP · phase ${session.phase} · milestone ${campaign.milestone.value} (${describeProgress(campaign.milestone)}) · turn ${session.turnLog.at(-1)?.turn ?? 0}`;
}
