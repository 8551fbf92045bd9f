import type { ValidationIssue } from '@parley/core';
import type { DisabledTool, ToolRefusalInfo } from '../gate-types.js';
import type {
  DisableUntil,
  FailedToolCall,
  RepairRecord,
  ToolCallRecord,
  ToolRefusalCode,
} from '../types.js';
import type { Runtime, Settled } from './judge.js';

const ERROR_CODES: ReadonlySet<ToolRefusalCode> = new Set([
  'policy_error',
  'confirmation_failed',
  'executor_error',
  'outcome_unknown',
  'store_failed',
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
    reason: rt.messages[code]?.(info) ?? text,
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
