import type { JsonValue } from '@parley/core';
import type { FlowDefinition } from './flow-compile.js';
import type { StepParts } from './flow-restore.js';
import type { FlowFields, FlowSnapshot, FlowStep, FlowSubmitResult } from './flow-types.js';

// The next snapshot of a flow, built once as one object literal (no spread of the previous one).

type Snapshot = FlowSnapshot<string, unknown>;
type Result = FlowSubmitResult<string, unknown>;
type Fields = { readonly [field: string]: JsonValue };
type History = Snapshot['history'];

/** @internal No steps skipped (shared, frozen). */
export const NONE: readonly string[] = Object.freeze([]);

/** @internal The current question of a flow snapshot; `undefined` when done. */
export function promptOf(def: FlowDefinition, snapshot: Snapshot): string | undefined {
  const index = def.byName.get(snapshot.state);
  if (index === undefined) return undefined;
  return (def.partsOf[index] as StepParts)[snapshot.part]?.prompt;
}

/** @internal Completes the current step with `data` and lands on the next step not skipped (or `done`). */
export function advance(
  def: FlowDefinition,
  from: Snapshot,
  snapshot: Snapshot,
  step: FlowStep,
  index: number,
  data: Fields,
  notice: string | undefined,
  at: number,
  limit: number,
): Result {
  const fields: Record<string, Fields> = { ...snapshot.fields };
  fields[step.name] = data;
  const steps = def.steps;
  let state = 'done';
  let prompt: string | undefined;
  let skipped = NONE;
  for (let i = index + 1; i < steps.length; i++) {
    const next = steps[i] as FlowStep;
    if (next.skip?.(fields) !== true) {
      state = next.name;
      prompt = (def.partsOf[i] as StepParts)[0]?.prompt; // a landed step starts at its first part
      break;
    }
    skipped = skipped === NONE ? [next.name] : [...skipped, next.name];
  }
  const status = state === 'done' ? 'done' : 'active';
  const history = moved(from, state, notice === undefined ? 'submit' : 'default', at, limit);
  const mark = notice === undefined ? null : snapshot.mark;
  const next = build(
    snapshot,
    state,
    at,
    history,
    fields,
    0,
    status,
    snapshot.attempts,
    mark,
    snapshot.notices,
  );
  if (notice === undefined && prompt !== undefined) {
    return {
      ok: true,
      step: step.name,
      next: state,
      done: state === 'done',
      prompt,
      skipped,
      snapshot: next,
    };
  }
  return {
    ok: true,
    step: step.name,
    next: state,
    done: state === 'done',
    ...(prompt === undefined ? {} : { prompt }),
    skipped,
    ...(notice === undefined ? {} : { notice }),
    snapshot: next,
  };
}

/** @internal A flow snapshot with every field named, in the order `start` writes them. */
export function build(
  s: Snapshot,
  state: string,
  updatedAt: number,
  history: History,
  fields: FlowFields,
  part: number,
  status: Snapshot['status'],
  attempts: Snapshot['attempts'],
  mark: string | null,
  notices: Snapshot['notices'],
): Snapshot {
  return {
    machine: s.machine,
    version: s.version,
    state,
    context: s.context,
    done: state === 'done',
    createdAt: s.createdAt,
    updatedAt,
    deadlines: s.deadlines,
    history,
    status,
    fields,
    part,
    attempts,
    mark,
    notices,
    reviews: s.reviews,
  };
}

/** @internal The history after a move from `from`'s state, keeping the newest `limit` entries. */
export function moved(from: Snapshot, to: string, event: string, at: number, limit: number): History {
  const entry = { from: from.state, to, event, at };
  const history = from.history.length === 0 ? [entry] : [...from.history, entry];
  return trim(history, limit);
}

/** @internal The newest `limit` entries of a history. */
export function trim(history: History, limit: number): History {
  return history.length > limit ? history.slice(history.length - limit) : history;
}
