import { FsmError } from '../errors.js';
import type { EventObject, MachineEvent, MachineSnapshot } from '../types.js';
import type { FsmRefusal, TransitionResult } from '../results.js';
import {
  callbackFailed,
  type CompiledMachine,
  type CompiledTransition,
  eventType,
  refusal,
} from './compiled.js';

// The pure step of a machine: (snapshot, event, at) → next snapshot or refusal. No clock, no timer.

/**
 * @internal Chooses the transition `event` takes from state `index`: the first candidate whose
 * guard holds, or a refusal.
 */
export function pick(
  compiled: CompiledMachine,
  index: number,
  event: MachineEvent,
  context: unknown,
): { transition?: CompiledTransition; refusal?: FsmRefusal } {
  const type = eventType(event);
  const candidates = compiled.table.get(type)?.[index];
  if (candidates === undefined) return { refusal: refusal(compiled, index, type) };
  let failed: string | undefined;
  for (const candidate of candidates) {
    if (candidate.guard === undefined) return { transition: candidate };
    const object: EventObject =
      typeof event === 'string' ? (compiled.eventObjects.get(type) as EventObject) : event;
    if (candidate.guard(context, object)) return { transition: candidate };
    failed = candidate.guardName;
  }
  return { refusal: refusal(compiled, index, type, failed) };
}

/** @internal The deadlines of state `index` entered at `at`, earliest first. */
export function deadlinesFor(
  compiled: CompiledMachine,
  index: number,
  at: number,
): { at: number; event: string }[] {
  const after = compiled.after[index];
  if (after === undefined) return [];
  return after.map((timeout) => ({ at: at + timeout.ms, event: timeout.event }));
}

/** @internal Takes `event` from `snapshot` at `at`: the next snapshot, or the refusal. */
export function step(
  compiled: CompiledMachine,
  snapshot: MachineSnapshot<string, unknown>,
  event: MachineEvent,
  at: number,
  historyLimit: number,
): TransitionResult<string, string, unknown> {
  const index = compiled.index.get(snapshot.state);
  if (index === undefined) {
    throw new FsmError('unknown_state', `Machine "${compiled.id}" has no state "${snapshot.state}"`, {
      details: { machine: compiled.id, state: snapshot.state },
    });
  }
  let t: CompiledTransition;
  let context: unknown;
  try {
    const chosen = pick(compiled, index, event, snapshot.context);
    if (chosen.transition === undefined) return chosen.refusal as FsmRefusal;
    t = chosen.transition;
    const object: EventObject =
      typeof event === 'string' ? (compiled.eventObjects.get(t.event) as EventObject) : event;
    context =
      t.assign === undefined
        ? snapshot.context
        : { ...(snapshot.context as object), ...t.assign(snapshot.context, object) };
  } catch (cause) {
    return callbackFailed(compiled, index, eventType(event), cause);
  }
  const history = [...snapshot.history, { from: t.from, to: t.to, event: t.event, at }];
  return {
    ...t.result,
    snapshot: {
      ...snapshot,
      state: t.to,
      context,
      done: compiled.final[t.toIndex] === true,
      updatedAt: at,
      deadlines: t.internal ? snapshot.deadlines : deadlinesFor(compiled, t.toIndex, at),
      history: history.length > historyLimit ? history.slice(history.length - historyLimit) : history,
    },
  };
}
