import type { ValidationIssue, ToolFailureStatus } from '@parley/core';

/**
 * One tool call as the model proposes it, in the reference request format
 * (`assistant_structured.tool_calls[]`): an id unique in its batch, the tool's name, its arguments
 * and an optional reason in natural language. Nothing in it is trusted.
 *
 * @example
 * ```ts
 * import type { ToolCallProposal } from '@parley/tools';
 *
 * const call: ToolCallProposal = {
 *   id: 'call_001',
 *   tool: 'move',
 *   args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' },
 *   reason: 'The party heads for the vault',
 * };
 * ```
 */
export interface ToolCallProposal {
  readonly id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly reason?: string | undefined;
}

/**
 * Every reason a call can fail for, as the `code` of a {@link FailedToolCall}; the README says
 * when each is produced. `policy_error`, `confirmation_failed`, `executor_error`, `stale_turn`,
 * `memory_full`, `outcome_unknown` and `store_failed` have status `error`; the others `rejected`.
 * `call_id_reused` means the id already named another call (other tool or other arguments) in this
 * turn: the call did not run, and the model may send it again under a new id.
 *
 * @example
 * ```ts
 * import { TOOL_REFUSAL_CODES } from '@parley/tools';
 *
 * console.log(TOOL_REFUSAL_CODES.includes('unknown_tool')); // true
 * ```
 */
export const TOOL_REFUSAL_CODES = [
  'invalid_call',
  'too_many_calls',
  'duplicate_call_id',
  'call_id_reused',
  'already_applied',
  'stale_turn',
  'memory_full',
  'unknown_tool',
  'disabled',
  'invalid_args',
  'not_allowed',
  'policy_error',
  'confirmation_unavailable',
  'confirmation_declined',
  'confirmation_timed_out',
  'confirmation_failed',
  'tool_refused',
  'executor_error',
  'cancelled',
  'outcome_unknown',
  'store_failed',
] as const;

/**
 * One of {@link TOOL_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { ToolRefusalCode } from '@parley/tools';
 *
 * const code: ToolRefusalCode = 'invalid_args';
 * ```
 */
export type ToolRefusalCode = (typeof TOOL_REFUSAL_CODES)[number];

/**
 * Until when a tool stays disabled: an epoch-ms time (`at`) or a turn number (`turn`; the tool is
 * usable again from that turn on).
 *
 * @example
 * ```ts
 * import type { DisableUntil } from '@parley/tools';
 *
 * const untilTurn: DisableUntil = { turn: 12 };
 * const untilTime: DisableUntil = { at: Date.UTC(2026, 0, 14, 10) };
 * ```
 */
export type DisableUntil = { readonly turn: number } | { readonly at: number };

/**
 * One entry of `tool_feedback.failed_calls`, in the reference shape (`id`, `tool`, `status`,
 * `reason`, `disabled_until`) plus the typed `code`, the tool's own reason when it gave one, and
 * the validation issues of invalid arguments.
 *
 * @example
 * ```ts
 * import type { FailedToolCall } from '@parley/tools';
 *
 * const failed: FailedToolCall = {
 *   id: 'call_001',
 *   tool: 'move',
 *   status: 'rejected',
 *   code: 'disabled',
 *   reason: 'The tool "move" is disabled until turn 5',
 *   disabled_until: 'turn 5',
 * };
 * ```
 */
export interface FailedToolCall {
  readonly id: string;
  readonly tool: string;
  readonly status: ToolFailureStatus;
  /** Why, in words the model can act on. */
  readonly reason: string;
  readonly code: ToolRefusalCode;
  /** `turn <n>` or an ISO 8601 time, when the tool is disabled. */
  readonly disabled_until?: string | undefined;
  /** The tool's own reason (one of its `reasons`), for `tool_refused` and some `not_allowed`. */
  readonly tool_reason?: string | undefined;
  /** For `invalid_args`: what is wrong with the arguments. */
  readonly issues?: readonly ValidationIssue[] | undefined;
}

/**
 * The reference `tool_feedback` object, appended to the previous request so the model can retry.
 *
 * @example
 * ```ts
 * import type { ToolGateFeedback } from '@parley/tools';
 *
 * const feedback: ToolGateFeedback = { failed_calls: [] };
 * ```
 */
export interface ToolGateFeedback {
  readonly failed_calls: readonly FailedToolCall[];
}

/**
 * A call that ran: its id, tool, the arguments it ran with (after any repair, as proposed) and what
 * the executor returned. `replayed` is true when the id had already run this turn and the recorded
 * outcome was returned without running again.
 *
 * @example
 * ```ts
 * import type { ExecutedToolCall } from '@parley/tools';
 *
 * const done: ExecutedToolCall = {
 *   id: 'call_002', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -3, cause: 'trap' },
 *   result: { hp: 12 }, replayed: false,
 * };
 * ```
 */
export interface ExecutedToolCall {
  readonly id: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly result: unknown;
  readonly replayed: boolean;
  /**
   * The id of an earlier call of this turn, from another batch, with the same content (tool and
   * canonical arguments) that already ran: the same effect, proposed again under a fresh id.
   */
  readonly sameContentAs?: string | undefined;
}

/**
 * What a repair hook did with an invalid call, kept for audit: what the model asked for, what the
 * hook proposed instead (if anything), and whether the repaired call was valid.
 *
 * @example
 * ```ts
 * import type { RepairRecord } from '@parley/tools';
 *
 * const record: RepairRecord = {
 *   problem: 'invalid_args',
 *   outcome: 'repaired',
 *   original: { tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: '-3', cause: 'trap' } },
 *   repaired: { tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -3, cause: 'trap' } },
 * };
 * ```
 */
export interface RepairRecord {
  readonly problem: 'unknown_tool' | 'invalid_args';
  /** `repaired`: the new call is valid; `gave_up`: the hook returned nothing; `still_invalid`; `failed`: it threw. */
  readonly outcome: 'repaired' | 'gave_up' | 'still_invalid' | 'failed';
  readonly original: { readonly tool: string; readonly args: unknown };
  readonly repaired?: { readonly tool: string; readonly args: unknown } | undefined;
}

/**
 * The audit record of one proposed call: what the model asked for, what ran (if anything), any
 * repair, the confirmation id, and the outcome with its code.
 *
 * @example
 * ```ts
 * import type { ToolCallRecord } from '@parley/tools';
 *
 * const record: ToolCallRecord = {
 *   id: 'call_003', turn: 4, requested: { tool: 'fly', args: {} },
 *   outcome: 'rejected', code: 'unknown_tool', replayed: false,
 * };
 * ```
 */
export interface ToolCallRecord {
  readonly id: string;
  readonly turn: number;
  readonly requested: { readonly tool: string; readonly args: unknown; readonly reason?: string | undefined };
  /** The tool and arguments that ran (differs from `requested` after a repair). */
  readonly ran?: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> } | undefined;
  readonly repair?: RepairRecord | undefined;
  /** The `@parley/confirm` decision id, when a confirmation gate was asked. */
  readonly confirmationId?: string | undefined;
  readonly outcome: 'executed' | ToolFailureStatus;
  readonly code?: ToolRefusalCode | undefined;
  readonly replayed: boolean;
  /** As in {@link ExecutedToolCall}: an earlier call of this turn with the same content that ran. */
  readonly sameContentAs?: string | undefined;
}

/**
 * What {@link ToolGate.process} returns for a batch: the calls that ran, the `tool_feedback` of
 * those that did not (empty `failed_calls` when all ran), and one audit record per proposed call,
 * in order. It is also a valid result for the `@parley/conflict` loop's tool gate.
 *
 * @example
 * ```ts
 * import type { ToolBatchResult } from '@parley/tools';
 *
 * function needsRetry(result: ToolBatchResult): boolean {
 *   return result.feedback.failed_calls.length > 0;
 * }
 * ```
 */
export interface ToolBatchResult {
  readonly executed: readonly ExecutedToolCall[];
  readonly feedback: ToolGateFeedback;
  readonly records: readonly ToolCallRecord[];
}

/**
 * The events of a {@link ToolGate}; each is emitted after the call's outcome is recorded.
 *
 * @example
 * ```ts
 * import type { ToolGateEvents } from '@parley/tools';
 *
 * const log = (event: ToolGateEvents['refused']): void => console.log(event.failed.code);
 * ```
 */
export interface ToolGateEvents {
  executed: { readonly turn: number; readonly call: ExecutedToolCall };
  refused: { readonly turn: number; readonly failed: FailedToolCall };
  repaired: { readonly turn: number; readonly id: string; readonly repair: RepairRecord };
  disabled: { readonly tool: string; readonly until: DisableUntil; readonly reason: string };
  /** Host code failed while judging or running a call (it is reported as `status: 'error'`). */
  error: {
    readonly turn: number;
    readonly id: string;
    readonly tool: string;
    readonly stage: 'policy' | 'confirm' | 'execute' | 'repair' | 'store' | 'message' | 'ledger';
    readonly error: unknown;
  };
}
