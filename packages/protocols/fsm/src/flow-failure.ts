import type { JsonValue, ValidationIssue } from '@parley/core';
import { FsmError } from './errors.js';
import type { FlowDefinition } from './flow-compile.js';
import { advance, build, moved, promptOf } from './flow-next.js';
import type { FailurePolicy, FlowFields, FlowSnapshot, FlowStep, FlowSubmitResult } from './flow-types.js';

type Snapshot = FlowSnapshot<string, unknown>;
type Result = FlowSubmitResult<string, unknown>;

/** @internal Why a submission failed, before the step's failure policy is applied. */
export interface Failure {
  readonly code: 'invalid_fields' | 'exit_failed';
  readonly issues: readonly ValidationIssue[];
  readonly missingFields: readonly string[];
  readonly reason: string;
}

/** @internal Applies the failure policy of the step to a failed submission. */
export function fail(
  def: FlowDefinition,
  snapshot: Snapshot,
  step: FlowStep,
  index: number,
  failure: Failure,
  submitted: unknown,
  at: number,
  limit: number,
): Result {
  const attempts = (snapshot.attempts[step.name] ?? 0) + 1;
  const attemptsPatch = { ...snapshot.attempts, [step.name]: attempts };
  const policy: FailurePolicy =
    typeof step.onFailure === 'function'
      ? step.onFailure({ step: step.name, ...failure, attempts, submitted, collected: snapshot.fields })
      : (step.onFailure ?? { action: 'retry', message: failure.reason });
  const mark = policy.mark ?? snapshot.mark;
  const base = { step: step.name, ...failure, detail: failure.reason, message: policy.message, attempts };
  switch (policy.action) {
    case 'default': {
      const fields = { ...snapshot.fields, [step.name]: { ...policy.value } };
      const notices = [...snapshot.notices, { step: step.name, message: policy.message, at }];
      const withNotice: Snapshot = { ...snapshot, attempts: attemptsPatch, notices, mark, fields };
      return advance(def, snapshot, withNotice, step, index, policy.value, policy.message, at, limit);
    }
    case 'back': {
      const to = def.byName.get(policy.to);
      if (to === undefined || to >= index) {
        // A static policy is checked by compileFlow; a policy function is checked here, as it runs.
        throw new FsmError(
          'invalid_definition',
          `Flow "${def.id}": the failure policy of "${step.name}" goes back to "${String(policy.to)}", which is not an earlier step`,
          { details: { flow: def.id, step: step.name, to: policy.to } },
        );
      }
      const fields: Record<string, FlowFields[string]> = { ...snapshot.fields };
      const attemptsBack: Record<string, number> = { ...attemptsPatch };
      for (let i = to; i <= index; i++) {
        delete fields[(def.steps[i] as FlowStep).name];
        if (i < index) delete attemptsBack[(def.steps[i] as FlowStep).name];
      }
      const history = moved(snapshot, policy.to, 'back', at, limit);
      const next = build(
        snapshot,
        policy.to,
        at,
        history,
        fields,
        0,
        'active',
        attemptsBack,
        mark,
        snapshot.notices,
      );
      return {
        ok: false,
        ...base,
        action: 'back',
        to: policy.to,
        prompt: promptOf(def, next) as string,
        snapshot: next,
      };
    }
    case 'manual_review': {
      const review = {
        step: step.name,
        queue: policy.queue,
        submitted: toJson(submitted),
        issues: failure.issues,
        reason: failure.reason,
        at,
      };
      const next: Snapshot = {
        ...snapshot,
        attempts: attemptsPatch,
        mark,
        updatedAt: at,
        reviews: [...snapshot.reviews, review],
      };
      return {
        ok: false,
        ...base,
        action: 'manual_review',
        queue: policy.queue,
        prompt: promptOf(def, next) as string,
        snapshot: next,
      };
    }
    default: {
      const status = policy.action === 'block' ? 'blocked' : snapshot.status;
      const next: Snapshot = { ...snapshot, attempts: attemptsPatch, mark, status, updatedAt: at };
      return {
        ok: false,
        ...base,
        action: policy.action,
        prompt: promptOf(def, next) as string,
        snapshot: next,
      };
    }
  }
}

function toJson(value: unknown): JsonValue {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return null;
  }
}
