import type { JsonValue, StandardSchemaV1, ValidationIssue } from '@parley/core';
import type { MachineSnapshot } from './types.js';

/**
 * The data collected so far: step name → the validated fields of that step.
 *
 * @example
 * ```ts
 * import type { FlowFields } from '@parley/fsm';
 *
 * const fields: FlowFields = { goal: { goal_type: 'dmca_takedown', intent_summary: 'Remove reposts' } };
 * ```
 */
export type FlowFields = { readonly [step: string]: { readonly [field: string]: JsonValue } };

/**
 * One answer of a step that needs several in sequence: its prompt and the schema of that answer.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { FlowPart } from '@parley/fsm';
 *
 * const part: FlowPart = { prompt: 'Confirm #1 (YES)', fields: z.object({ confirm1: z.literal('YES') }) };
 * ```
 */
export interface FlowPart {
  readonly prompt: string;
  readonly fields: StandardSchemaV1;
}

/**
 * What a step does when a submission fails its schema or its exit condition.
 *
 * - `retry`: stay on the step (and part) and ask again with `message`.
 * - `back`: go back to the named earlier step; fields collected from there on are discarded.
 * - `block`: stay on the step with the flow `blocked`: nothing after it may run until a valid answer.
 * - `manual_review`: stay on the step and hand the submission to the named queue (kept in `reviews`).
 * - `default`: take `value` as the step's fields instead, with `message` as an explicit notice, and go on.
 *
 * `mark` labels the flow until the step is completed (e.g. `close_pending`).
 *
 * @example
 * ```ts
 * import type { FailurePolicy } from '@parley/fsm';
 *
 * const policy: FailurePolicy<'evidence'> = { action: 'back', to: 'evidence', message: 'Confirmation failed' };
 * ```
 */
export type FailurePolicy<TStep extends string = string> =
  | { readonly action: 'retry'; readonly message: string; readonly mark?: string }
  | { readonly action: 'back'; readonly to: TStep; readonly message: string; readonly mark?: string }
  | { readonly action: 'block'; readonly message: string; readonly mark?: string }
  | {
      readonly action: 'manual_review';
      readonly queue: string;
      readonly message: string;
      readonly mark?: string;
    }
  | {
      readonly action: 'default';
      readonly value: { readonly [field: string]: JsonValue };
      readonly message: string;
      readonly mark?: string;
    };

/**
 * The facts a failure policy function receives.
 *
 * @example
 * ```ts
 * import type { FailurePolicy, StepFailure } from '@parley/fsm';
 *
 * const policy = (failure: StepFailure): FailurePolicy =>
 *   failure.attempts < 3 ? { action: 'retry', message: 'Try again' } : { action: 'manual_review', queue: 'ops', message: 'Handed to a human' };
 * ```
 */
export interface StepFailure {
  readonly step: string;
  readonly code: 'invalid_fields' | 'exit_failed';
  /** Failed submissions of this step so far, this one included. */
  readonly attempts: number;
  readonly issues: readonly ValidationIssue[];
  readonly missingFields: readonly string[];
  readonly reason: string;
  /** What was submitted. */
  readonly submitted: unknown;
  readonly collected: FlowFields;
}

/**
 * What a step's exit condition returns: `true` to go on; `false`, a reason, or a reason with the
 * fields that are still missing to fail. Use the last form when the condition depends on earlier
 * steps (one justification per target of the scope, one answer per listed item): the fields it names
 * reach the result's and the failure policy's `missingFields`, like fields the schema found absent.
 *
 * @example
 * ```ts
 * import type { ExitVerdict } from '@parley/fsm';
 *
 * const perTarget = (given: Record<string, string>, targets: string[]): ExitVerdict => {
 *   const missing = targets.filter((target) => given[target] === undefined);
 *   return missing.length === 0 || { reason: 'A target has no justification', missingFields: missing };
 * };
 * console.log(perTarget({ 'x:1': 'reposts my photo' }, ['x:1', 'x:2'])); // { reason: 'A target has no justification', missingFields: [ 'x:2' ] }
 * ```
 */
export type ExitVerdict =
  | boolean
  | string
  | { readonly reason: string; readonly missingFields: readonly string[] };

/**
 * One step of a flow.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { FlowStep } from '@parley/fsm';
 *
 * const notify: FlowStep<'notify'> = {
 *   name: 'notify',
 *   prompt: 'How should I notify results? (none/telegram/email/signal)',
 *   fields: z.object({ notify_mode: z.enum(['none', 'telegram', 'email', 'signal']) }),
 *   onFailure: { action: 'default', value: { notify_mode: 'none' }, message: 'Unsupported mode: no notification' },
 * };
 * ```
 */
export interface FlowStep<TName extends string = string, TStep extends string = string> {
  readonly name: TName;
  /** What the user is asked (the first part's prompt stands in when there are parts). */
  readonly prompt: string;
  /**
   * The schema of the step's fields (all parts merged, when there are parts). The flow stores the
   * schema's output, and `restore` validates the stored fields against the schema again: a schema
   * that transforms (trims, normalises, fills defaults) must accept its own output and map it to
   * itself, e.g. `z.string().trim()`, not `z.string().transform((s) => s.length)`.
   */
  readonly fields?: StandardSchemaV1;
  /** Answers asked one after the other, each with its own schema; any failure takes `onFailure`. */
  readonly parts?: readonly FlowPart[];
  /**
   * Checked on the validated fields: `true` to go on, `false` or a reason to fail, or an
   * {@link ExitVerdict} that also names the fields still missing (they reach `missingFields`).
   */
  readonly exit?: (fields: { readonly [field: string]: JsonValue }, collected: FlowFields) => ExitVerdict;
  /** A short text of the exit condition, for drawings and docs. */
  readonly exitLabel?: string;
  /**
   * `retry` with the schema's message by default. A function must return a `back` to an earlier
   * step (checked when it runs); a `default` value it returns is taken as the step's fields.
   */
  readonly onFailure?: FailurePolicy<TStep> | ((failure: StepFailure) => FailurePolicy<TStep>);
  /**
   * A short text of the failure handling, for drawings: `toMermaid` draws a policy function as
   * `policy(fn)` unless this says what it does (e.g. `retry, then manual review`).
   */
  readonly onFailureLabel?: string;
  /** When it returns true on entry, the step is skipped. */
  readonly skip?: (collected: FlowFields) => boolean;
  /** A short text of the skip condition, for drawings. */
  readonly skipLabel?: string;
}

/**
 * Where a flow stands: going on, blocked by a step's `block` policy, or done.
 *
 * @example
 * ```ts
 * import type { FlowStatus } from '@parley/fsm';
 *
 * const status: FlowStatus = 'blocked';
 * ```
 */
export type FlowStatus = 'active' | 'blocked' | 'done';

/**
 * The plain-JSON snapshot of a flow: a machine snapshot (state = current step, or `done`) plus the
 * fields collected per step, the current part, failures and what was handed over.
 *
 * @example
 * ```ts
 * import type { FlowSnapshot } from '@parley/fsm';
 *
 * const fields = (snapshot: FlowSnapshot) => snapshot.fields;
 * ```
 */
export type FlowSnapshot<TStep extends string = string, TContext = unknown> = MachineSnapshot<
  TStep | 'done',
  TContext
> & {
  readonly status: FlowStatus;
  readonly fields: FlowFields;
  /** Index of the current part of the current step. */
  readonly part: number;
  /** Failed submissions per step. */
  readonly attempts: { readonly [step: string]: number };
  /** The label of the last failure policy with a `mark`, until its step completes. */
  readonly mark: string | null;
  readonly notices: readonly { readonly step: string; readonly message: string; readonly at: number }[];
  readonly reviews: readonly {
    readonly step: string;
    readonly queue: string;
    readonly submitted: JsonValue;
    readonly issues: readonly FlowIssue[];
    readonly reason: string;
    readonly at: number;
  }[];
};

/**
 * A validation issue as kept in a flow snapshot (plain JSON).
 *
 * @example
 * ```ts
 * import type { FlowIssue } from '@parley/fsm';
 *
 * const issue: FlowIssue = { path: ['export_answer'], pathText: 'export_answer', message: 'Required' };
 * ```
 */
export type FlowIssue = {
  readonly path: readonly (string | number)[];
  readonly pathText: string;
  readonly message: string;
};

/**
 * What a submission returns: the step moved on, or the failure with the step's handling, or a
 * refusal because the flow is done. Returned, never thrown.
 *
 * @example
 * ```ts
 * import type { FlowSubmitResult } from '@parley/fsm';
 *
 * const say = (result: FlowSubmitResult) =>
 *   result.ok ? (result.prompt ?? 'Done') : result.message;
 * ```
 */
export type FlowSubmitResult<TStep extends string = string, TContext = unknown> =
  | {
      readonly ok: true;
      /** The step the answer was for. */
      readonly step: TStep;
      /** Where the flow is now: the next step (or the same step's next part), or `done`. */
      readonly next: TStep | 'done';
      readonly done: boolean;
      /** What to ask now; absent when done. */
      readonly prompt?: string;
      /** Steps skipped on the way. */
      readonly skipped: readonly TStep[];
      /** Set when a `default` policy stood in for a failed answer. */
      readonly notice?: string;
      readonly snapshot: FlowSnapshot<TStep, TContext>;
    }
  | {
      readonly ok: false;
      readonly code: 'invalid_fields' | 'exit_failed';
      readonly step: TStep;
      readonly issues: readonly ValidationIssue[];
      readonly missingFields: readonly string[];
      /** What failed, in words: the schema's issues or the exit condition's reason. */
      readonly detail: string;
      /** @deprecated Use `detail` (the same text); removed in the next minor version. */
      readonly reason: string;
      /** The failure handling taken. */
      readonly action: 'retry' | 'back' | 'block' | 'manual_review';
      readonly message: string;
      /** For `back`: the step gone back to. For `manual_review`: the queue. */
      readonly to?: TStep;
      readonly queue?: string;
      readonly attempts: number;
      /** What to ask now. */
      readonly prompt: string;
      readonly snapshot: FlowSnapshot<TStep, TContext>;
    }
  | {
      readonly ok: false;
      readonly code: 'flow_done';
      readonly step: 'done';
      /** Why nothing more is taken, in words. */
      readonly message: string;
      /** @deprecated Use `message` (the same text); removed in the next minor version. */
      readonly reason: string;
      readonly snapshot: FlowSnapshot<TStep, TContext>;
    };
