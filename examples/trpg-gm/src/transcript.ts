// The readable transcript: who said what, every draft of the GM and what the host did with it
// (conflicts, refused and applied tool calls, retries, conflict reports), host events, settings
// changes, milestones and rollbacks. Each line is stamped with the injected clock's time (UTC).
import type { AppliedAction, AttemptRecord, ToolCall } from '@parley/conflict';
import type { Clock } from '@parley/core';
import type { TurnResult } from './turn.js';

export interface Transcript {
  readonly lines: readonly string[];
  log(text: string): void;
}

export function createTranscript(clock: Clock, output: (line: string) => void = () => {}): Transcript {
  const lines: string[] = [];
  return {
    lines,
    log(text) {
      for (const part of text.split('\n')) {
        const line = part === '' ? '' : `${new Date(clock.now()).toISOString().slice(11, 19)}  ${part}`;
        lines.push(line);
        output(line);
      }
    },
  };
}

/** The lines of one played turn. */
export function describeTurn(
  result: Extract<TurnResult, { ok: true }>,
  names: (id: string) => string,
): string[] {
  const { log, outcome, settings } = result;
  const lines = [
    `── turn ${log.turn} (${log.turn_id}) · ${names(log.actor_id)} · dialog: ${log.assistant_structured.dialog_type} · history: ${result.requests[0]?.history_mode ?? '?'} · settings global v${settings.version.global} / campaign v${settings.version.campaign}`,
  ];
  if (result.branchCommitted)
    lines.push(
      '   (a new command after a rollback: the rollback is now a branch, undo is no longer possible)',
    );
  if (result.milestoneAdvanced) {
    lines.push(
      `   ★ milestone advanced to ${log.assistant_structured.milestone_value}: the prompt now asks the GM to accelerate`,
    );
  }
  lines.push(`${names(log.actor_id)} (player): ${log.user_input}`);
  for (const record of outcome.attempts) lines.push(...describeAttempt(record, result));
  if (!outcome.ok) {
    lines.push(
      `   ⚠ conflict_report (${outcome.report.reason}) after ${outcome.report.attempts} attempts: ${outcome.report.summary}`,
    );
  }
  lines.push(`GM → players: ${log.assistant_output_text}`);
  if (result.gameOver)
    lines.push('   ☠ a party member died and rules.hp_zero_ends_game is on: the game is over');
  return lines;
}

function describeAttempt(
  record: AttemptRecord<unknown>,
  result: Extract<TurnResult, { ok: true }>,
): string[] {
  const output = record.output as
    | { text?: unknown; tool_calls?: readonly ToolCall[]; structured?: unknown }
    | undefined; // a Proposal as the model sent it
  const calls = (output?.tool_calls ?? []).map(formatCall);
  const lines = [
    `   GM draft ${record.attempt}: "${String(output?.text ?? '')}"${calls.length === 0 ? '' : ` + ${calls.join(', ')}`}${output?.structured === undefined ? '' : ` + structured ${JSON.stringify(output.structured)}`}`,
  ];
  for (const conflict of record.conflicts)
    lines.push(`     ✗ conflict [${conflict.detector}] ${conflict.mismatch_reason}`);
  for (const failed of record.toolFeedback?.failed_calls ?? []) {
    const code = result.refused.find((entry) => entry.id === failed.id)?.code ?? failed.code ?? failed.status;
    const until = failed.disabled_until === undefined ? '' : ` (disabled_until: ${failed.disabled_until})`;
    lines.push(`     ✗ refused ${failed.tool} ${failed.id} [${code}]: ${failed.reason}${until}`);
  }
  for (const action of record.executed) lines.push(`     ✓ ${formatApplied(action)}`);
  for (const again of record.recognised) {
    lines.push(`     = ${again.tool} ${again.id} is ${again.as}, already ${again.status}: not run again`);
  }
  if (record.status === 'conflict' || record.status === 'tool_rejected') {
    const what = record.status === 'conflict' ? 'conflict_debug' : 'tool_feedback';
    const last = record.attempt === result.outcome.attempts.length;
    lines.push(
      last && !result.outcome.ok
        ? `     ⨯ no retries left (K = ${result.maxRetries})`
        : `     ↻ ${what} appended to the previous request (retry ${record.attempt} of ${result.maxRetries})`,
    );
  }
  return lines;
}

export function formatCall(call: ToolCall): string {
  const args = call.args ?? {};
  if (call.tool === 'move') return `move(${args['actor_id']} ${args['from_area_id']}→${args['to_area_id']})`;
  if (call.tool === 'hp_delta') {
    return `hp_delta(${args['target_character_id']}, ${args['delta']}, "${args['cause']}")`;
  }
  return `${call.tool}(${JSON.stringify(args)})`;
}

function formatApplied(action: AppliedAction): string {
  const result = (action.result ?? {}) as Record<string, unknown>; // what our executors return
  if (action.tool === 'move') {
    return `move ${result['actor_id']}: ${result['from_area_id']} → ${result['to_area_id']} (via ${result['path_id']})`;
  }
  return `hp_delta ${result['target_character_id']}: HP ${result['hp_before']} → ${result['hp_after']} (${result['alive_state']})`;
}
