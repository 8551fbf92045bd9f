import { canonicalJson } from '@parley/core';
import type {
  AlreadyApplied,
  AppliedAction,
  DeferredCall,
  Proposal,
  RecognisedCall,
  ToolCall,
} from '../types.js';

/**
 * The content identity of a call: its tool and its canonical arguments. Two calls are the same
 * effect exactly when their keys are equal, whatever their ids. Throws (core's
 * `json_not_serializable` / `json_too_deep`) for arguments that are not JSON.
 */
export function callKey(tool: string, args: unknown): string {
  return canonicalJson([tool, args ?? null]);
}

/** One call the gate took in this run (executed or held), with its content key. */
interface Taken {
  readonly key: string;
  readonly id: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly status: RecognisedCall['status'];
  readonly attempt: number;
}

/** How a ledger sorts the calls of one proposal. */
export interface Sorted {
  /** Equal to a call that already took effect (or is held) in this run: never sent again. */
  readonly recognised: readonly RecognisedCall[];
  /** An id the gate saw earlier in this run with other content: refused. */
  readonly reused: readonly { readonly call: ToolCall; readonly attempt: number; readonly tool: string }[];
  /** New effects, for the gate. */
  readonly fresh: readonly ToolCall[];
  /** What the turn has taken effect once this proposal is accepted: earlier effects plus the new ones. */
  readonly effects: readonly AppliedAction[];
}

/**
 * What one run has done, by content: every call the gate executed or holds, and the content each
 * call id stood for. The rule it keeps: an effect equal to one already taken in the run is that
 * effect (matched one to one, so two equal calls in one answer are two effects), and an id stands
 * for one content for the whole run.
 */
export interface Ledger {
  /** Sorts a well-formed proposal's calls (`keys[i]` is the key of `calls[i]`). */
  sort(calls: readonly ToolCall[], keys: readonly string[]): Sorted;
  /** Records what the gate did with the fresh calls of `attempt`. */
  record(
    fresh: readonly ToolCall[],
    keys: ReadonlyMap<string, string>,
    executed: readonly AppliedAction[],
    deferred: readonly DeferredCall[],
    failedIds: readonly string[],
    attempt: number,
  ): void;
  /** Every executed call of the run, oldest first, with the attempt that ran it. */
  applied(): readonly AlreadyApplied[];
}

export function createLedger(): Ledger {
  const taken: Taken[] = [];
  /** id → the content it stood for and the attempt that first used it, for every id the gate saw. */
  const ids = new Map<string, { readonly key: string; readonly tool: string; readonly attempt: number }>();

  return {
    sort(calls, keys) {
      // Nothing taken and no id seen yet (every run's first judged answer): every call is new.
      if (taken.length === 0 && ids.size === 0) {
        return { recognised: [], reused: [], fresh: [...calls], effects: [...calls] };
      }
      const reused: { call: ToolCall; attempt: number; tool: string }[] = [];
      const open: number[] = [];
      calls.forEach((call, index) => {
        const before = ids.get(call.id);
        if (before !== undefined && before.key !== keys[index]) {
          reused.push({ call, attempt: before.attempt, tool: before.tool });
        } else open.push(index);
      });
      const match = matchTaken(
        open.map((index) => ({ id: calls[index]!.id, key: keys[index]! })),
        taken,
      );
      const recognised: RecognisedCall[] = [];
      const fresh: ToolCall[] = [];
      open.forEach((index, at) => {
        const call = calls[index]!;
        const entry = match[at];
        if (entry === undefined) fresh.push(call);
        else recognised.push({ id: call.id, tool: call.tool, as: entry.id, status: entry.status });
      });
      const effects: AppliedAction[] = taken
        .filter((entry) => entry.status === 'applied')
        .map((entry) => ({ id: entry.id, tool: entry.tool, args: entry.args }));
      // A held call re-sent is still proposed: it counts as the proposal's calls always have.
      const held = new Set(
        recognised.filter((entry) => entry.status === 'deferred').map((entry) => entry.id),
      );
      effects.push(...calls.filter((call) => held.has(call.id)), ...fresh);
      return { recognised, reused, fresh, effects };
    },
    record(fresh, keys, executed, deferred, failedIds, attempt) {
      const byId = new Map(fresh.map((call) => [call.id, call]));
      const take = (id: string, status: Taken['status']): void => {
        const call = byId.get(id)!; // the gate answered only calls it was given
        const key = keys.get(id)!;
        taken.push({ key, id, tool: call.tool, args: call.args, status, attempt });
        ids.set(id, { key, tool: call.tool, attempt });
      };
      for (const action of executed) take(action.id, 'applied');
      for (const held of deferred) take(held.id, 'deferred');
      for (const id of failedIds) {
        const call = byId.get(id)!;
        if (!ids.has(id)) ids.set(id, { key: keys.get(id)!, tool: call.tool, attempt });
      }
    },
    applied() {
      if (taken.length === 0) return [];
      return taken
        .filter((entry) => entry.status === 'applied')
        .map((entry) => ({ id: entry.id, tool: entry.tool, args: entry.args, attempt: entry.attempt }));
    },
  };
}

/**
 * Matches calls to taken effects one to one by content: a call with the id of an equal effect takes
 * that one first, the others take the oldest equal effect left. Linear in calls + effects.
 */
function matchTaken<T extends { readonly id: string; readonly key: string }>(
  calls: readonly { readonly id: string; readonly key: string }[],
  effects: readonly T[],
): readonly (T | undefined)[] {
  const used = new Set<T>();
  const byId = new Map(effects.map((entry) => [entry.id, entry]));
  const queues = new Map<string, { readonly list: T[]; next: number }>();
  for (const entry of effects) {
    const queue = queues.get(entry.key);
    if (queue === undefined) queues.set(entry.key, { list: [entry], next: 0 });
    else queue.list.push(entry);
  }
  const out: (T | undefined)[] = calls.map((call) => {
    const same = byId.get(call.id);
    if (same === undefined || same.key !== call.key) return undefined;
    used.add(same);
    return same;
  });
  calls.forEach((call, index) => {
    if (out[index] !== undefined) return;
    const queue = queues.get(call.key);
    if (queue === undefined) return;
    while (queue.next < queue.list.length && used.has(queue.list[queue.next]!)) queue.next++;
    const entry = queue.list[queue.next];
    if (entry === undefined) return;
    queue.next++;
    used.add(entry);
    out[index] = entry;
  });
  return out;
}

/**
 * The effects of a turn as a detector called on its own works them out: the calls applied in
 * earlier attempts, plus each proposed call not equal (one to one, by content) to one of them.
 * Arguments that are not JSON make a call unlike any other.
 */
export function effectsOf(proposal: Proposal, applied: readonly AppliedAction[]): readonly AppliedAction[] {
  const keyOf = (tool: string, args: unknown, index: number): string => {
    try {
      return callKey(tool, args);
    } catch {
      return `\u0000${index}`;
    }
  };
  const calls = proposal.tool_calls ?? [];
  const taken = applied.map((action, index) => ({
    id: action.id,
    key: keyOf(action.tool, action.args, -1 - index),
  }));
  const match = matchTaken(
    calls.map((call, index) => ({ id: call.id, key: keyOf(call.tool, call.args, index) })),
    taken,
  );
  return [...applied, ...calls.filter((_, index) => match[index] === undefined)];
}
