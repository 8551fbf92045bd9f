import type { ToolRunOptions } from '../gate-types.js';
import type { RepairRecord, ToolCallRecord } from '../types.js';
import type { CallBase, CheckedCall, Runtime } from './runtime.js';

// What the steps of one call's judgement pass each other (judge → policies → run).

/** What every step of one call's judgement reads. */
export interface Judging<TContext> {
  readonly rt: Runtime<TContext>;
  readonly call: CheckedCall;
  readonly requested: ToolCallRecord['requested'];
  readonly run: ToolRunOptions<TContext>;
}

export type Proposal = { readonly tool: string; readonly args: unknown };

export const at = (
  j: { readonly call: CheckedCall; readonly requested: ToolCallRecord['requested'] },
  tool: string,
): Omit<CallBase, 'content'> => ({
  id: j.call.id,
  tool,
  requested: j.requested,
});

/** The parts of a call every check allowed, as its records need them. */
export interface Parts {
  /** The call's id (what a refusal reports it as: {@link baseOfParts}). */
  readonly id: string;
  readonly requested: ToolCallRecord['requested'];
  readonly ran: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> };
  readonly done: RepairRecord | undefined;
  /** The confirmation the call ran under, once one was given. */
  readonly confirmationId: string | undefined;
}

/** What a call that passed every check is reported as, made only when it is refused or stored. */
export const baseOfParts = (parts: Parts): Omit<CallBase, 'content'> => ({
  id: parts.id,
  tool: parts.ran.tool,
  requested: parts.requested,
});

/** What a refusal of a call that passed every check records of it (written only when it is refused). */
export const refusedParts = (parts: Parts) => ({
  repair: parts.done,
  ran: parts.ran,
  confirmationId: parts.confirmationId,
});

/** Settles a pending repair's outcome once the repaired call has been judged. */
export function finalRepair(repair: RepairRecord | undefined, valid: boolean): RepairRecord | undefined {
  if (repair === undefined || repair.repaired === undefined) return repair;
  return { ...repair, outcome: valid ? 'repaired' : 'still_invalid' };
}
