import { type JsonValue, validate } from '@parley/core';
import type { FlowDefinition } from './flow-compile.js';
import { fail } from './flow-failure.js';
import { advance, build, NONE, trim } from './flow-next.js';
import type { StepParts } from './flow-restore.js';
import { exitFailure } from './flow-exit.js';
import type { FlowSnapshot, FlowStep, FlowSubmitResult } from './flow-types.js';
import { isRecord } from './snapshot.js';

type Snapshot = FlowSnapshot<string, unknown>;
type Result = FlowSubmitResult<string, unknown>;

/**
 * @internal The pure step of a flow: validates `submitted` against the current step (or part) and
 * returns the next snapshot, or the failure with the step's policy applied. Each snapshot is built
 * once, as one object literal (no spread of the previous one), and diagnostic text is written only
 * on failure.
 */
export function submitFlow(
  def: FlowDefinition,
  snapshot: Snapshot,
  submitted: unknown,
  at: number,
  limit: number,
): Result {
  const index = def.byName.get(snapshot.state);
  if (index === undefined) {
    return {
      ok: false,
      code: 'flow_done',
      step: 'done',
      message: `Flow "${def.id}" is done; nothing more is asked`,
      reason: `Flow "${def.id}" is done; nothing more is asked`,
      snapshot,
    };
  }
  const step = def.steps[index] as FlowStep;
  const parts = def.partsOf[index] as StepParts;
  const part = parts[snapshot.part] ?? (parts[0] as StepParts[number]);
  const before = snapshot.fields[step.name];

  // 1. the current part's schema
  const checked = validate(part.fields, submitted);
  if (!checked.ok) {
    const reason = checked.issues
      .map((i) => (i.pathText === '' ? i.message : `${i.pathText}: ${i.message}`))
      .join('; ');
    const failure = {
      code: 'invalid_fields',
      issues: checked.issues,
      missingFields: checked.missingFields,
      reason,
    } as const;
    return fail(def, snapshot, step, index, failure, submitted, at, limit);
  }
  // The snapshot never shares an object with the caller: their own object is copied, a fresh
  // output of the schema is kept as it is.
  const value = asFields(checked.value);
  let collected: Record<string, JsonValue> =
    before !== undefined ? { ...before, ...value } : value === submitted ? { ...value } : value;
  if (snapshot.part < parts.length - 1) {
    const fields = { ...snapshot.fields, [step.name]: collected };
    const next = build(
      snapshot,
      step.name,
      at,
      trim(snapshot.history, limit),
      fields,
      snapshot.part + 1,
      'active',
      snapshot.attempts,
      snapshot.mark,
      snapshot.notices,
    );
    return {
      ok: true,
      step: step.name,
      next: step.name,
      done: false,
      prompt: (parts[snapshot.part + 1] as StepParts[number]).prompt,
      skipped: NONE,
      snapshot: next,
    };
  }
  // 2. the whole step's schema (when parts are merged) and its exit condition
  if (step.parts !== undefined && step.fields !== undefined) {
    const whole = validate(step.fields, collected);
    if (!whole.ok) {
      const reason = whole.issues.map((i) => `${i.pathText}: ${i.message}`).join('; ');
      const failure = {
        code: 'invalid_fields',
        issues: whole.issues,
        missingFields: whole.missingFields,
        reason,
      } as const;
      return fail(def, snapshot, step, index, failure, submitted, at, limit);
    }
    collected = { ...collected, ...asFields(whole.value) };
  }
  if (step.exit !== undefined) {
    const verdict = step.exit(collected, { ...snapshot.fields, [step.name]: collected });
    if (verdict !== true) {
      const fallback = `The exit condition of "${step.name}" does not hold${step.exitLabel === undefined ? '' : ` (${step.exitLabel})`}`;
      const failure = { code: 'exit_failed', issues: [], ...exitFailure(verdict, fallback) } as const;
      return fail(def, snapshot, step, index, failure, submitted, at, limit);
    }
  }
  return advance(def, snapshot, snapshot, step, index, collected, undefined, at, limit);
}

/** Schema outputs are taken as the JSON they validated (documented: field schemas describe JSON). */
function asFields(value: unknown): Record<string, JsonValue> {
  return isRecord(value) ? (value as Record<string, JsonValue>) : {};
}
