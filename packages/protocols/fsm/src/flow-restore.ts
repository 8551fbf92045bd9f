import { type JsonValue, type StandardSchemaV1, validate } from '@parley/core';
import { FsmError } from './errors.js';
import { exitFailure } from './flow-exit.js';
import type { FlowSnapshot, FlowStep } from './flow-types.js';
import type { CompiledMachine } from './internal/compiled.js';
import { isRecord, restoreSnapshot } from './snapshot.js';

/** @internal The parts of a step: its own, or one part made of its `fields` schema. */
export type StepParts = readonly { readonly prompt: string; readonly fields: StandardSchemaV1 }[];

type Fields = { readonly [field: string]: JsonValue };

/**
 * @internal Checks a persisted flow snapshot: the machine checks (shape, id, version, state, done,
 * context), the flow's own fields, and that the snapshot is **reachable**: every step before the
 * current one was completed with fields that pass its schema and exit condition (or stood in for
 * by its `default` policy) or is skipped by its skip condition on the restored data; the current
 * step holds only the answers of its parts so far; no later step holds anything; and the history
 * is a chain of moves a flow makes, ending in the current step.
 */
export function restoreFlow(
  compiled: CompiledMachine,
  steps: readonly FlowStep[],
  partsOf: readonly StepParts[],
  value: unknown,
): FlowSnapshot<string, unknown> {
  const base = restoreSnapshot(compiled, value, false);
  // restoreSnapshot keeps every field of the (migrated) snapshot; the flow's own are checked here.
  const raw = base as unknown as Record<string, unknown>;
  const { fields, part, attempts, status, mark, notices, reviews } = raw;
  const bad = (
    message: string,
    code: 'invalid_snapshot' | 'invalid_fields' = 'invalid_snapshot',
    details: Readonly<Record<string, unknown>> = {},
  ): FsmError =>
    new FsmError(code, `Cannot restore flow "${compiled.id}": ${message}`, {
      details: { flow: compiled.id, ...details },
    });
  const names = steps.map((step) => step.name);
  const known = (name: unknown): boolean => typeof name === 'string' && names.includes(name);
  if (!isRecord(fields) || !isRecord(attempts) || !Array.isArray(notices) || !Array.isArray(reviews)) {
    throw bad('"fields", "attempts", "notices" and "reviews" are required');
  }
  if (!Number.isInteger(part) || (part as number) < 0) throw bad('"part" must be an integer ≥ 0');
  if (status !== 'active' && status !== 'blocked' && status !== 'done')
    throw bad('"status" must be active, blocked or done');
  if (mark !== null && typeof mark !== 'string') throw bad('"mark" must be a string or null');
  for (const [name, count] of Object.entries(attempts)) {
    if (!known(name) || !Number.isInteger(count) || (count as number) < 0) {
      throw bad(`"attempts" of "${name}" must be a count ≥ 0 of a step`, 'invalid_snapshot', { step: name });
    }
  }
  if (!notices.every((n) => isRecord(n) && known(n.step) && typeof n.message === 'string')) {
    throw bad('"notices" must be a list of { step, message, at } naming steps');
  }
  if (!reviews.every((r) => isRecord(r) && known(r.step) && typeof r.queue === 'string')) {
    throw bad('"reviews" must be a list of { step, queue, submitted, issues, reason, at } naming steps');
  }

  const current = base.state === 'done' ? steps.length : names.indexOf(base.state);
  const state = base.state;
  if ((current === steps.length) !== (status === 'done'))
    throw bad(`status "${String(status)}" does not fit state "${state}"`);
  const partsHere = partsOf[current]?.length ?? 1;
  if ((part as number) >= partsHere)
    throw bad(`step "${state}" has no part ${String(part)}`, undefined, { step: state });
  const here = steps[current];
  if (
    status === 'blocked' &&
    here !== undefined &&
    typeof here.onFailure !== 'function' &&
    here.onFailure?.action !== 'block'
  ) {
    throw bad(`step "${state}" cannot be blocked: its failure policy does not block`, undefined, {
      step: state,
    });
  }
  if (mark !== null && steps.every((s) => typeof s.onFailure !== 'function' && s.onFailure?.mark !== mark)) {
    throw bad(`no failure policy of the flow sets the mark "${mark}"`);
  }
  checkFlowHistory(base.history, names, state, bad);

  for (const name of Object.keys(fields)) {
    if (!known(name))
      throw bad(`"fields" names the unknown step "${name}"`, 'invalid_fields', { step: name });
  }
  const prefix: Record<string, Fields> = {};
  steps.forEach((step, i) => {
    const data = fields[step.name];
    const parts = partsOf[i] as StepParts;
    if (i > current || (i === current && part === 0)) {
      if (data !== undefined) {
        throw bad(
          `"fields" holds answers for "${step.name}", which the flow has not reached (it is at "${state}", part ${String(part)})`,
          'invalid_snapshot',
          { step: step.name },
        );
      }
      return;
    }
    if (data === undefined) {
      if (i < current && step.skip?.(prefix) === true) return;
      throw bad(
        i < current
          ? `step "${step.name}" comes before "${state}" but was neither completed nor skipped`
          : `step "${step.name}" is at part ${String(part)} but holds no answers`,
        'invalid_snapshot',
        { step: step.name },
      );
    }
    if (!isRecord(data))
      throw bad(`the fields of "${step.name}" must be an object`, 'invalid_fields', { step: step.name });
    const answers = data as Fields;
    const schemas =
      i === current
        ? parts.slice(0, part as number).map((p) => p.fields)
        : step.parts === undefined || step.fields === undefined
          ? parts.map((p) => p.fields)
          : [step.fields];
    const defaulted = i < current && stoodIn(step, answers, notices as readonly { step: string }[]);
    for (const schema of schemas) {
      const result = validate(schema, answers);
      if (!result.ok) {
        throw bad(
          `the fields of "${step.name}" fail its schema (a schema that transforms its input must accept its own output)`,
          'invalid_fields',
          { step: step.name, issues: result.issues, missingFields: result.missingFields },
        );
      }
    }
    if (i < current && step.exit !== undefined && !defaulted) {
      const verdict = step.exit(answers, { ...prefix, [step.name]: answers });
      if (verdict !== true) {
        throw bad(`the fields of "${step.name}" fail its exit condition`, 'invalid_fields', {
          step: step.name,
          ...exitFailure(verdict, step.exitLabel ?? 'exit condition'),
          issues: [],
        });
      }
    }
    prefix[step.name] = answers;
  });
  // checked above
  return { ...base, fields, part, attempts, status, mark, notices, reviews } as FlowSnapshot<string, unknown>;
}

/**
 * Whether a step's fields were put in by its `default` policy: a notice names the step and the
 * fields are the policy's value (a policy function's value cannot be known, so its notice suffices).
 */
function stoodIn(step: FlowStep, fields: Fields, notices: readonly { step: string }[]): boolean {
  if (!notices.some((notice) => notice.step === step.name)) return false;
  const policy = step.onFailure;
  if (typeof policy === 'function') return true;
  return policy?.action === 'default' && sameJson(fields, policy.value);
}

/** A flow moves forward by `submit` or `default` (skipping steps maybe) and backward by `back`. */
function checkFlowHistory(
  history: FlowSnapshot['history'],
  names: readonly string[],
  state: string,
  bad: (message: string, code?: 'invalid_snapshot', details?: Readonly<Record<string, unknown>>) => FsmError,
): void {
  const at = (name: string): number => (name === 'done' ? names.length : names.indexOf(name));
  history.forEach((entry, k) => {
    const from = at(entry.from);
    const to = at(entry.to);
    const forward = entry.event === 'submit' || entry.event === 'default';
    const moves =
      from >= 0 &&
      from < names.length &&
      to >= 0 &&
      (forward ? to > from : entry.event === 'back' && to < from);
    if (!moves) {
      throw bad(
        `history entry ${k} (${entry.from} → ${entry.to} on "${entry.event}") is not a move of the flow`,
        'invalid_snapshot',
        { entry: k },
      );
    }
    const next = history[k + 1]?.from ?? state;
    if (entry.to !== next) {
      throw bad(
        `history entry ${k} ends in "${entry.to}", but the flow then is in "${next}"`,
        'invalid_snapshot',
        {
          entry: k,
        },
      );
    }
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isRecord(a) || !isRecord(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
}
