// One attempt of a node's work as a pure step: when its time is up, what settles it first, what a
// result that comes after that means. The Store runner runs it on its clock; @parley/restate runs
// it with a durable timer raced against the journaled attempt.
import type { StepResult } from '@parley/core';

/**
 * How an attempt ended: the work's value, its error, the node's timeout, or the run stopping it.
 *
 * @example
 * ```ts
 * import type { AttemptOutcome } from '@parley/pipeline';
 *
 * const outcome: AttemptOutcome = { kind: 'timeout', message: 'no result within 60000 ms' };
 * ```
 */
export type AttemptOutcome =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'error' | 'timeout' | 'stopped'; readonly message: string };

/**
 * An attempt as {@link attemptStep} keeps it (plain JSON): when it started, when its time is up
 * (`startedAt + timeoutMs`), and how it ended once it has.
 *
 * @example
 * ```ts
 * import type { AttemptState } from '@parley/pipeline';
 *
 * const state: AttemptState = { startedAt: 0, deadlineAt: 60_000, timeoutMs: 60_000 };
 * ```
 */
export interface AttemptState {
  readonly startedAt: number;
  readonly deadlineAt: number;
  readonly timeoutMs: number;
  /** The first thing that settled it; nothing settles it again. */
  readonly outcome?: AttemptOutcome;
}

/**
 * What can happen to an attempt: it starts (with the node's `timeoutMs`), the work returns or
 * throws, the timer set for its deadline fires, or the run stops it.
 *
 * @example
 * ```ts
 * import type { AttemptEvent } from '@parley/pipeline';
 *
 * const events: AttemptEvent[] = [{ type: 'start', timeoutMs: 60_000 }, { type: 'timer' }];
 * ```
 */
export type AttemptEvent =
  | { readonly type: 'start'; readonly timeoutMs: number }
  | { readonly type: 'result'; readonly value: unknown }
  | { readonly type: 'error'; readonly message: string }
  | { readonly type: 'timer' }
  | { readonly type: 'stop'; readonly message: string };

/**
 * What {@link attemptStep} asks its host to do: wait until `deadlineAt` (a timer; fire `timer`
 * then), abort the work's signal with `reason`, hand on the outcome (`settled`, once), or drop a
 * result that came after the attempt settled (`ignored`, `late_result`).
 *
 * @example
 * ```ts
 * import type { AttemptEffect } from '@parley/pipeline';
 *
 * const effect: AttemptEffect = { type: 'abort', reason: 'no result within 60000 ms' };
 * ```
 */
export type AttemptEffect =
  | { readonly type: 'wait'; readonly deadlineAt: number }
  | { readonly type: 'abort'; readonly reason: string }
  | { readonly type: 'settled'; readonly outcome: AttemptOutcome }
  | { readonly type: 'ignored'; readonly code: 'late_result' };

/**
 * Computes an attempt's next state for `event` at `now`: the rules of a node's per-attempt
 * `timeoutMs` as one pure step. The first of result, error, deadline and stop settles the
 * attempt; a result or error at or past the deadline is a timeout, whatever the timer did; a
 * timeout, error or stop aborts the work's signal; anything after the attempt settled changes
 * nothing (a late result or error is `ignored`).
 *
 * Use it to host attempts on another engine (`@parley/restate` races a durable timer against the
 * journaled attempt and feeds the winner here); the Store runner runs it on its clock. It never
 * reads a clock, sets a timer or awaits.
 *
 * @example
 * ```ts
 * import { attemptStep } from '@parley/pipeline';
 *
 * const started = attemptStep(undefined, { type: 'start', timeoutMs: 1_000 }, 0);
 * console.log(started.effects); // [ { type: 'wait', deadlineAt: 1000 } ]
 * const timedOut = attemptStep(started.value, { type: 'timer' }, 1_000);
 * console.log(timedOut.value?.outcome); // { kind: 'timeout', message: 'no result within 1000 ms' }
 * const late = attemptStep(timedOut.value, { type: 'result', value: 'draft' }, 1_500);
 * console.log(late.effects); // [ { type: 'ignored', code: 'late_result' } ]
 * ```
 */
export function attemptStep(
  current: AttemptState | undefined,
  event: AttemptEvent,
  now: number,
): StepResult<AttemptState, AttemptEffect> {
  if (event.type === 'start') {
    if (current !== undefined) return { value: current, effects: [] };
    const deadlineAt = now + event.timeoutMs;
    const state = { startedAt: now, deadlineAt, timeoutMs: event.timeoutMs };
    return { value: state, effects: [{ type: 'wait', deadlineAt }], deadlineAt };
  }
  if (current === undefined) return { value: undefined, effects: [] };
  if (current.outcome !== undefined) {
    const late = event.type === 'result' || event.type === 'error';
    return { value: current, effects: late ? [{ type: 'ignored', code: 'late_result' }] : [] };
  }
  let outcome: AttemptOutcome;
  if (event.type === 'timer') {
    // A timer that fired early (a clock step) waits again for what is left.
    if (now < current.deadlineAt)
      return { value: current, effects: [{ type: 'wait', deadlineAt: current.deadlineAt }] };
    outcome = timedOut(current);
  } else if (event.type === 'stop') outcome = { kind: 'stopped', message: event.message };
  else if (now >= current.deadlineAt) outcome = timedOut(current);
  else if (event.type === 'error') outcome = { kind: 'error', message: event.message };
  else outcome = { kind: 'value', value: event.value };
  const settled: AttemptEffect = { type: 'settled', outcome };
  return {
    value: { ...current, outcome },
    effects: outcome.kind === 'value' ? [settled] : [{ type: 'abort', reason: outcome.message }, settled],
  };
}

/** The outcome of an attempt whose time ran out (its text made only when it did). */
function timedOut(current: AttemptState): AttemptOutcome {
  return { kind: 'timeout', message: `no result within ${current.timeoutMs} ms` };
}
