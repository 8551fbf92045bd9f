import { type Clock, createEmitter, isParleyError, systemClock, type Unsubscribe } from '@parley/core';
import type { DetectContext, Detector } from './detector.js';
import { ConflictError } from './errors.js';
import type { ToolGateLike } from './gate.js';
import { checkGateResult, checkProposal } from './internal/checks.js';
import { createLedger, type Sorted } from './internal/effects.js';
import { type Judgement, runLoop, withAbort } from './internal/engine.js';
import { checkFunction, checkLimit } from './internal/options.js';
import type { Conflict, FailedCall, Proposal } from './types.js';
import type { ConflictLoopEvents, ConflictOutcome, GenerateFn } from './records.js';

/**
 * K, the retries a conflict loop allows by default: 2 (the reference document suggests 1–2).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_RETRIES } from '@parley/conflict';
 *
 * console.log(DEFAULT_MAX_RETRIES); // 2
 * ```
 */
export const DEFAULT_MAX_RETRIES = 2;

/**
 * How many times a thrown generator (or reviewer) is retried with the same request by default: 1,
 * as in the reference "model API error: retry once automatically, then report".
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ERROR_RETRIES } from '@parley/conflict';
 *
 * console.log(DEFAULT_MAX_ERROR_RETRIES); // 1
 * ```
 */
export const DEFAULT_MAX_ERROR_RETRIES = 1;

/**
 * The most tool calls one output may propose by default: 50. A turn needs a handful; the cap keeps
 * the gate's work, the feedback and the report bounded whatever the model writes.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CALLS_PER_ATTEMPT } from '@parley/conflict';
 *
 * console.log(DEFAULT_MAX_CALLS_PER_ATTEMPT); // 50
 * ```
 */
export const DEFAULT_MAX_CALLS_PER_ATTEMPT = 50;

/**
 * Options for {@link createConflictLoop}.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { defineHpClaimDetector, type ConflictLoopOptions } from '@parley/conflict';
 *
 * const options: ConflictLoopOptions<unknown> = {
 *   detectors: [defineHpClaimDetector()],
 *   maxRetries: 1,
 *   clock: createManualClock(),
 * };
 * ```
 */
export interface ConflictLoopOptions<TState> {
  /** Run in order on every attempt; all of them run, and every conflict found is reported. */
  readonly detectors?: readonly Detector<TState>[];
  /**
   * Judges and executes the tool calls of an attempt no detector objected to. Without a gate the
   * calls are returned in the output untouched: nothing executes them and `appliedActions` is empty.
   */
  readonly gate?: ToolGateLike<TState>;
  /** K: retries after the first attempt (0–100); {@link DEFAULT_MAX_RETRIES} by default. */
  readonly maxRetries?: number;
  /** Retries of a generator that threw, with the same request (0–100); 1 by default. */
  readonly maxErrorRetries?: number;
  /**
   * The most tool calls one output may propose (0–1000); {@link DEFAULT_MAX_CALLS_PER_ATTEMPT} by
   * default. An output with more is a `proposal_shape` conflict and none of its calls run.
   */
  readonly maxCallsPerAttempt?: number;
  /** The source of the records' times; `systemClock` by default. */
  readonly clock?: Clock;
}

/**
 * What {@link ConflictLoop.run} takes for one turn.
 *
 * @example
 * ```ts
 * import type { ConflictRunOptions } from '@parley/conflict';
 *
 * const run: ConflictRunOptions<{ hp: number }, string> = {
 *   input: 'The goblin attacks',
 *   generate: async (request) => ({ text: `(${request.input}) The goblin misses.` }),
 *   readState: () => ({ hp: 20 }),
 * };
 * ```
 */
export interface ConflictRunOptions<TState, TInput> {
  /** The original request (prompt, messages…), passed unchanged to every attempt as `request.input`. */
  readonly input: TInput;
  /** Wraps the model client: gets the request with the feedback appended so far. */
  readonly generate: GenerateFn<TInput, Proposal>;
  /** Reads the authoritative state, fresh for every attempt (the gate may have changed it). */
  readonly readState: () => TState | Promise<TState>;
  /** Cancels the run: it rejects with `cancelled`, and no later tool call is executed. */
  readonly signal?: AbortSignal;
}

/**
 * A conflict loop made by {@link createConflictLoop}.
 *
 * @example
 * ```ts
 * import { createConflictLoop, type ConflictLoop } from '@parley/conflict';
 *
 * const loop: ConflictLoop<unknown> = createConflictLoop();
 * const off = loop.on('attempt', ({ record }) => console.log(record.status));
 * off();
 * ```
 */
export interface ConflictLoop<TState> {
  /**
   * Runs one turn: generate, detect, gate, and retry with feedback until the output is clean or K
   * retries are spent.
   *
   * @throws ConflictError `cancelled` when the signal aborts; `detector_failed` when a detector
   * throws or returns a malformed conflict; `gate_failed` when the gate throws or breaks its
   * contract; `invalid_argument` when `generate` or `readState` is not a function. Errors thrown
   * by `readState` reject the run unchanged.
   */
  run<TInput>(options: ConflictRunOptions<TState, TInput>): Promise<ConflictOutcome<Proposal, TInput>>;
  /** Subscribes to `attempt` (every record) and `settled`; returns the unsubscribe function. */
  on<K extends keyof ConflictLoopEvents>(
    event: K,
    listener: (payload: ConflictLoopEvents[K]) => void,
  ): Unsubscribe;
}

/**
 * Creates the check-and-retry loop of the reference document: the model's output is intercepted,
 * checked by every detector against the authoritative state and, when clean, its tool calls are
 * judged by the gate. A conflict or a refused call appends `conflict_debug` / `tool_feedback` to
 * the previous request and asks again, at most K times; then the run ends with a `conflict_report`
 * for a person.
 *
 * Use one loop per kind of turn (its detectors and gate are fixed) and call `run` per turn. Tool
 * calls of an attempt a detector rejects are never executed. Effects are carried forward: what the
 * gate executed stays applied, every retry's feedback lists it in `already_applied`, and a later
 * call equal to it (same tool, same canonical arguments, matched one to one) is recognised and not
 * run again, whatever its id. A call id reused for other content is refused (`call_id_reused`)
 * and nothing of that attempt runs. A malformed output (no text, a call without id/tool/args,
 * a repeated id, args that are not JSON, more than `maxCallsPerAttempt` calls) is a conflict of
 * the built-in `proposal_shape` detector. A generator that throws
 * is retried once with the same request (`maxErrorRetries`), then reported as `generator_failed`.
 *
 * @throws ConflictError `invalid_argument` for a limit outside 0–100, a detector not made by
 * `defineDetector`, two detectors with one name, or a gate that is not a function.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createConflictLoop, defineHpClaimDetector, type Proposal } from '@parley/conflict';
 *
 * const state = { hp: 20 };
 * const loop = createConflictLoop<typeof state>({
 *   detectors: [defineHpClaimDetector()],
 *   gate: async (calls) => {
 *     for (const call of calls) state.hp += Number(call.args['delta']);
 *     return { executed: calls.map((call) => ({ id: call.id, tool: call.tool })) };
 *   },
 *   clock: createManualClock(),
 * });
 *
 * const answers: Proposal[] = [
 *   { text: 'The arrow hits: you lose 5 HP.' },
 *   {
 *     text: 'The arrow hits: you lose 5 HP.',
 *     tool_calls: [{ id: 'call_1', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -5, cause: 'arrow' } }],
 *   },
 * ];
 * const outcome = await loop.run({
 *   input: 'The goblin shoots',
 *   generate: async (request) => answers[request.feedback.length]!,
 *   readState: () => state,
 * });
 * console.log(outcome.ok, outcome.retries, state.hp); // true 1 15
 * ```
 */
export function createConflictLoop<TState = unknown>(
  options: ConflictLoopOptions<TState> = {},
): ConflictLoop<TState> {
  const maxRetries = checkLimit(options.maxRetries, 'maxRetries', DEFAULT_MAX_RETRIES);
  const maxErrorRetries = checkLimit(options.maxErrorRetries, 'maxErrorRetries', DEFAULT_MAX_ERROR_RETRIES);
  const maxCallsPerAttempt = checkLimit(
    options.maxCallsPerAttempt,
    'maxCallsPerAttempt',
    DEFAULT_MAX_CALLS_PER_ATTEMPT,
    1_000,
  );
  const detectors = checkDetectors(options.detectors ?? []);
  const gate = options.gate;
  if (gate !== undefined) checkFunction(gate, 'gate');
  const clock = options.clock ?? systemClock;
  const events = createEmitter<ConflictLoopEvents>();

  return {
    async run(run) {
      checkFunction(run?.generate, 'generate');
      checkFunction(run.readState, 'readState');
      const { readState } = run;
      const ledger = createLedger();
      return runLoop(
        {
          maxRetries,
          maxErrorRetries,
          limitReason: 'max_retries',
          clock,
          events,
          async judge(output, { attempt, signal, applied }): Promise<Judgement> {
            const shape = checkProposal(output, maxCallsPerAttempt);
            if (!shape.ok) return { kind: 'retry', status: 'conflict', conflicts: [shape.conflict] };
            const proposal = shape.value;
            const calls = proposal.tool_calls ?? [];
            const sorted = ledger.sort(calls, shape.keys);
            // A host callback that hangs must not outlive an abort: state reads and detectors are
            // abandoned when the signal fires (the gate is not, since what it ran must be known).
            const state = await withAbort(Promise.resolve().then(readState), signal);
            const found: Conflict[] = [];
            const context = { attempt, applied: [...applied], effects: sorted.effects };
            for (const detector of detectors) {
              for (const conflict of await withAbort(
                detectWith(detector, proposal, state, context),
                signal,
              )) {
                found.push({ detector: detector.name, ...conflict });
              }
            }
            const conflicts = capConflicts(found);
            const common = {
              recognised: sorted.recognised,
              skippedCallIds: sorted.recognised.map((call) => call.id),
              alreadyApplied: ledger.applied(),
            };
            if (conflicts.length > 0 || sorted.reused.length > 0) {
              return {
                kind: 'retry',
                status: conflicts.length > 0 ? 'conflict' : 'tool_rejected',
                conflicts,
                ...(sorted.reused.length === 0
                  ? {}
                  : { toolFeedback: { failed_calls: sorted.reused.map(reusedId) } }),
                ...common,
              };
            }
            const fresh = sorted.fresh;
            if (gate === undefined || fresh.length === 0)
              return { kind: 'accept', status: 'passed', ...common };
            let result: unknown;
            try {
              result = await gate(fresh, { state, attempt, proposal, applied: [...applied], signal });
            } catch (error) {
              throw new ConflictError('gate_failed', 'The tool gate threw', {
                cause: error,
                details: { callIds: fresh.map((call) => call.id) },
              });
            }
            const checked = checkGateResult(result, fresh);
            const keys = new Map(calls.map((call, index) => [call.id, shape.keys[index]!]));
            const failedIds = checked.failed.map((call) => call.id);
            ledger.record(fresh, keys, checked.executed, checked.deferred, failedIds, attempt);
            const done = {
              ...common,
              alreadyApplied: ledger.applied(),
              executed: checked.executed,
              deferred: checked.deferred,
            };
            if (checked.failed.length === 0) return { kind: 'accept', status: 'passed', ...done };
            return {
              kind: 'retry',
              status: 'tool_rejected',
              toolFeedback: { failed_calls: checked.failed },
              ...done,
            };
          },
        },
        run.input,
        run.generate,
        run.signal,
      );
    },
    on: (event, listener) => events.on(event, listener),
  };
}

/** At most this many conflicts of one attempt are kept; a last entry counts the rest. */
const MAX_CONFLICTS_PER_ATTEMPT = 20;

function capConflicts(conflicts: readonly Conflict[]): readonly Conflict[] {
  if (conflicts.length <= MAX_CONFLICTS_PER_ATTEMPT) return conflicts;
  const kept = conflicts.slice(0, MAX_CONFLICTS_PER_ATTEMPT - 1);
  const more = conflicts.length - kept.length;
  return [
    ...kept,
    {
      detector: 'conflict_limit',
      expected_state_snippet: null,
      mismatch_reason: `${more} more conflicts were found in this output and left out`,
      instructions:
        'Fix every conflict listed above; the same mistakes are repeated further on in the output.',
    },
  ];
}

function reusedId(entry: Sorted['reused'][number]): FailedCall {
  return {
    id: entry.call.id,
    tool: entry.call.tool,
    status: 'rejected',
    reason: `The id "${entry.call.id}" already stood for another call (${entry.tool}) in attempt ${entry.attempt}; give this call a new id.`,
    code: 'call_id_reused',
  };
}

async function detectWith<TState>(
  detector: Detector<TState>,
  proposal: Proposal,
  state: TState,
  context: DetectContext,
): ReturnType<Detector<TState>['detect']> {
  try {
    return await detector.detect(proposal, state, context);
  } catch (error) {
    if (isParleyError(error, 'detector_failed')) throw error;
    throw new ConflictError('detector_failed', `Detector "${detector.name}" threw`, {
      cause: error,
      details: { detector: detector.name },
    });
  }
}

function checkDetectors<TState>(detectors: readonly Detector<TState>[]): readonly Detector<TState>[] {
  if (!Array.isArray(detectors)) {
    throw new ConflictError('invalid_argument', 'detectors must be a list made with defineDetector');
  }
  const names = new Set<string>();
  for (const detector of detectors) {
    if (typeof detector?.name !== 'string' || typeof detector.detect !== 'function') {
      throw new ConflictError('invalid_argument', 'Every detector must be made with defineDetector');
    }
    if (names.has(detector.name)) {
      throw new ConflictError('invalid_argument', `Two detectors are named "${detector.name}"`, {
        details: { detector: detector.name },
      });
    }
    names.add(detector.name);
  }
  return [...detectors];
}
