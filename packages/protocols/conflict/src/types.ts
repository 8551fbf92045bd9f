import type { ToolFailureStatus } from '@parley/core';
/**
 * One tool call the model proposes, in the reference document's request format
 * (`assistant_structured.tool_calls[]`).
 *
 * @example
 * ```ts
 * import type { ToolCall } from '@parley/conflict';
 *
 * const call: ToolCall = {
 *   id: 'call_001',
 *   tool: 'hp_delta',
 *   args: { target_character_id: 'pc_1', delta: -5, cause: 'goblin arrow' },
 *   reason: 'The goblin hits',
 * };
 * ```
 */
export interface ToolCall {
  /**
   * Unique within a proposal, and within a run it stands for one content: an id reused for another
   * call is refused (`call_id_reused`). It is a label only: the loop knows a call by its tool and
   * canonical arguments, so an equal call re-sent under a fresh id is not run again.
   */
  readonly id: string;
  /** The tool's name, e.g. `move` or `hp_delta`. */
  readonly tool: string;
  /** The arguments; judged by the tool gate, never trusted. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The model's reason, in natural language (optional). */
  readonly reason?: string | undefined;
}

/**
 * What a generator returns in the conflict loop: the text meant for players plus the structured
 * part (tool calls and anything else the host asks the model for).
 *
 * @example
 * ```ts
 * import type { Proposal } from '@parley/conflict';
 *
 * const proposal: Proposal = {
 *   text: 'The arrow hits: you lose 5 HP.',
 *   tool_calls: [{ id: 'call_1', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -5, cause: 'arrow' } }],
 * };
 * ```
 */
export interface Proposal {
  /** The narrative text (`assistant_output_text`). */
  readonly text: string;
  /** Proposed tool calls (`assistant_structured.tool_calls`). */
  readonly tool_calls?: readonly ToolCall[] | undefined;
  /** Any other structured output, e.g. a proposed state patch a detector inspects. */
  readonly structured?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The reference document's `conflict_debug`: what the authoritative state says, why the output
 * disagrees with it, and what the retry must do instead.
 *
 * @example
 * ```ts
 * import type { ConflictDebug } from '@parley/conflict';
 *
 * const debug: ConflictDebug = {
 *   expected_state_snippet: { 'pc_1.hp': { current: 20, max: 20 } },
 *   mismatch_reason: 'The text says "you lose 5 HP" but no hp_delta call settles it',
 *   instructions: 'Do not change HP in the narrative; request an hp_delta tool call.',
 * };
 * ```
 */
export interface ConflictDebug {
  /** A summary of the authoritative fields involved (plain JSON). */
  readonly expected_state_snippet: unknown;
  /** Why the output contradicts them. */
  readonly mismatch_reason: string;
  /** What the model must do in the retry. */
  readonly instructions: string;
}

/**
 * A conflict found by a detector: its `conflict_debug` plus which detector found it and the
 * text or call that triggered it.
 *
 * @example
 * ```ts
 * import type { Conflict } from '@parley/conflict';
 *
 * const conflict: Conflict = {
 *   detector: 'move_claim',
 *   evidence: 'moves to the tavern',
 *   expected_state_snippet: { current_area_ids: ['market'] },
 *   mismatch_reason: 'The text claims a move but no move call was proposed',
 *   instructions: 'Request a move tool call instead of narrating the move.',
 * };
 * ```
 */
export interface Conflict extends ConflictDebug {
  /** The name of the detector that found it. */
  readonly detector: string;
  /** The matched text or path, when there is one. */
  readonly evidence?: string | undefined;
  /** The tool call concerned, when there is one. */
  readonly call_id?: string | undefined;
}

/**
 * One entry of `tool_feedback.failed_calls`, with the reference document's field names, plus what
 * a typed gate (such as `@parley/tools`') adds: its refusal `code`, the tool's own reason and the
 * argument issues. Attempt records keep those extras; the feedback appended to the model's request
 * and the conflict report carry the document's fields only.
 *
 * @example
 * ```ts
 * import type { FailedCall } from '@parley/conflict';
 *
 * const failed: FailedCall = {
 *   id: 'call_001',
 *   tool: 'move',
 *   status: 'rejected',
 *   reason: 'area_locked: the movement lock is not released',
 *   disabled_until: 'the door is unlocked',
 *   code: 'tool_refused',
 *   tool_reason: 'area_locked',
 * };
 * ```
 */
export interface FailedCall {
  readonly id: string;
  readonly tool: string;
  readonly status: ToolFailureStatus;
  /** Why it failed, in words the model can act on. */
  readonly reason: string;
  /** Optional: until when (or what) the tool stays disabled. */
  readonly disabled_until?: string | undefined;
  /** The gate's typed refusal code (`not_allowed`, `invalid_args`…), when it gave one. Records only. */
  readonly code?: string | undefined;
  /** The tool's own reason (one of its declared reasons), when the gate gave one. Records only. */
  readonly tool_reason?: string | undefined;
  /** What is wrong with the arguments, when the gate said. Records only. */
  readonly issues?: readonly FailedCallIssue[] | undefined;
}

/**
 * One argument issue of a {@link FailedCall}, as a gate reports it (the shape of core's
 * `ValidationIssue`; only `message` is required).
 *
 * @example
 * ```ts
 * import type { FailedCallIssue } from '@parley/conflict';
 *
 * const issue: FailedCallIssue = { path: ['to'], pathText: 'to', message: 'Required' };
 * ```
 */
export interface FailedCallIssue {
  readonly path?: readonly (string | number)[] | undefined;
  readonly pathText?: string | undefined;
  readonly message: string;
}

/**
 * The reference document's `tool_feedback`: the calls that were refused or failed, appended to
 * the previous request so the model does not have to guess.
 *
 * @example
 * ```ts
 * import type { ToolFeedback } from '@parley/conflict';
 *
 * const feedback: ToolFeedback = {
 *   failed_calls: [{ id: 'call_9', tool: 'teleport', status: 'rejected', reason: 'tool not enabled' }],
 * };
 * ```
 */
export interface ToolFeedback {
  readonly failed_calls: readonly FailedCall[];
}

/**
 * A tool call the gate executed (the document's `applied_actions`).
 *
 * @example
 * ```ts
 * import type { AppliedAction } from '@parley/conflict';
 *
 * const action: AppliedAction = { id: 'call_1', tool: 'hp_delta', args: { delta: -5 }, result: { hp: 15 } };
 * ```
 */
export interface AppliedAction {
  readonly id: string;
  readonly tool: string;
  readonly args?: Readonly<Record<string, unknown>> | undefined;
  /** Whatever the tool returned, for the turn log. */
  readonly result?: unknown;
}

/**
 * A tool call the gate neither executed nor refused but holds, e.g. waiting for a person to
 * confirm a destructive tool. It does not cause a retry, and an equal call (by content) in a later
 * attempt is recognised as held and never sent to the gate again.
 *
 * @example
 * ```ts
 * import type { DeferredCall } from '@parley/conflict';
 *
 * const held: DeferredCall = { id: 'call_3', tool: 'delete_save', reason: 'awaiting confirmation cfm_1' };
 * ```
 */
export interface DeferredCall {
  readonly id: string;
  readonly tool: string;
  readonly reason?: string | undefined;
}

/**
 * A proposed call the conflict loop recognised as equal (same tool, same canonical arguments) to
 * one that already took effect, or is held, earlier in the run: it is not sent to the gate again.
 *
 * @example
 * ```ts
 * import type { RecognisedCall } from '@parley/conflict';
 *
 * const again: RecognisedCall = { id: 'call_C', tool: 'hp_delta', as: 'call_A', status: 'applied' };
 * ```
 */
export interface RecognisedCall {
  /** The id this proposal gave it. */
  readonly id: string;
  readonly tool: string;
  /** The id of the earlier call it is equal to. */
  readonly as: string;
  /** `applied` (it ran) or `deferred` (the gate holds it). */
  readonly status: 'applied' | 'deferred';
}

/**
 * One call that already took effect in this run, as the retry feedback lists it
 * (`already_applied`): it stays applied, and an equal call in a later attempt is recognised as it
 * and not run again.
 *
 * @example
 * ```ts
 * import type { AlreadyApplied } from '@parley/conflict';
 *
 * const done: AlreadyApplied = { id: 'call_A', tool: 'hp_delta', args: { delta: -5 }, attempt: 1 };
 * ```
 */
export interface AlreadyApplied {
  readonly id: string;
  readonly tool: string;
  /** The arguments as proposed. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The attempt (1-based) in which it ran. */
  readonly attempt: number;
}
