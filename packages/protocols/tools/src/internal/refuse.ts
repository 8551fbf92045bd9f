import type { ValidationIssue } from '@parley/core';
import type { DisabledTool } from '../disabled-tool.js';
import type { ToolRefusalInfo } from '../hook-types.js';
import type {
  DisableUntil,
  FailedToolCall,
  RepairRecord,
  ToolCallRecord,
  ToolRefusalCode,
} from '../types.js';
import type { Runtime, Settled } from './runtime.js';

const ERROR_CODES: ReadonlySet<ToolRefusalCode> = new Set([
  'policy_error',
  'confirmation_failed',
  'executor_error',
  'outcome_unknown',
  'store_failed',
  'stale_turn',
  'memory_full',
]);

/** Writes a failed call (with the host's message for its code, if any) and its record. */
export function refuse<TContext>(
  rt: Runtime<TContext>,
  turn: number,
  base: { readonly id: string; readonly tool: string; readonly requested: ToolCallRecord['requested'] },
  code: ToolRefusalCode,
  text: string,
  extra: {
    readonly toolReason?: string | undefined;
    readonly until?: DisableUntil | undefined;
    readonly issues?: readonly ValidationIssue[] | undefined;
    readonly repair?: RepairRecord | undefined;
    readonly confirmationId?: string | undefined;
    readonly ran?: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> } | undefined;
  } = {},
): Settled {
  const disabledUntil = extra.until === undefined ? undefined : formatUntil(extra.until);
  const info: ToolRefusalInfo = {
    id: base.id,
    tool: base.tool,
    code,
    text,
    toolReason: extra.toolReason,
    disabledUntil,
    issues: extra.issues,
  };
  const status = ERROR_CODES.has(code) ? 'error' : 'rejected';
  const failed: FailedToolCall = {
    id: base.id,
    tool: base.tool,
    status,
    reason: messageFor(rt, turn, info),
    code,
    ...(disabledUntil === undefined ? {} : { disabled_until: disabledUntil }),
    ...(extra.toolReason === undefined ? {} : { tool_reason: extra.toolReason }),
    ...(extra.issues === undefined ? {} : { issues: extra.issues }),
  };
  const record: ToolCallRecord = {
    id: base.id,
    turn,
    requested: base.requested,
    ...(extra.ran === undefined ? {} : { ran: extra.ran }),
    ...(extra.repair === undefined ? {} : { repair: extra.repair }),
    ...(extra.confirmationId === undefined ? {} : { confirmationId: extra.confirmationId }),
    outcome: status,
    code,
    replayed: false,
  };
  return { record, failed, ran: code === 'executor_error' };
}

/**
 * The host's text for a refusal, or the default one when it has none, throws or answers something
 * other than text (the throw is reported as an `error` event with stage `message`).
 */
function messageFor<TContext>(rt: Runtime<TContext>, turn: number, info: ToolRefusalInfo): string {
  const write = rt.messages[info.code];
  if (write === undefined) return info.text;
  try {
    const text: unknown = write(info);
    return typeof text === 'string' ? text : info.text;
  } catch (error) {
    rt.emit('error', { turn, id: info.id, tool: info.tool, stage: 'message', error });
    return info.text;
  }
}

/** Writes `turn 5` or an ISO 8601 time. */
export function formatUntil(until: DisableUntil): string {
  return 'turn' in until ? `turn ${until.turn}` : new Date(until.at).toISOString();
}

export function unknownText(tool: string, names: readonly string[]): string {
  return `There is no tool named "${tool}"; the tools are: ${names.join(', ')}`;
}

export function invalidText(issues: readonly ValidationIssue[]): string {
  const parts = issues.map((issue) =>
    issue.pathText === '' ? issue.message : `${issue.pathText}: ${issue.message}`,
  );
  return `The arguments are invalid: ${parts.join('; ')}`;
}

export function disabledText(off: DisabledTool): string {
  return `The tool "${off.tool}" is disabled until ${formatUntil(off.until)}${off.reason === '' ? '' : ` (${off.reason})`}`;
}
