import type { Clock, Unsubscribe } from '@parley/core';
import type { Detector } from './detector.js';
import type { ToolGateLike } from './gate.js';
import type { GenerateFn } from './records.js';
import type { ConflictLoopEvents, ConflictOutcome } from './report.js';
import type { Proposal } from './types.js';

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
 * import { defineProtectedFieldsDetector, type ConflictLoopOptions } from '@parley/conflict';
 *
 * const options: ConflictLoopOptions<unknown> = {
 *   detectors: [defineProtectedFieldsDetector({ fields: ['order.total'] })],
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
  /**
   * The document's `intercept_output`: whether the detectors check each output against the
   * authoritative state (`true` by default). Off, no detector runs: the output's shape is still
   * checked and its tool calls still go to the gate, but narrative claims pass unchecked.
   */
  readonly interceptOutput?: boolean;
  /**
   * The document's `retry_with_debug`: whether an output with conflicts is regenerated with
   * `conflict_debug` appended (`true` by default). Off, the first conflict ends the run with a
   * `retry_disabled` conflict report; refused tool calls are still retried with `tool_feedback`.
   */
  readonly retryWithDebug?: boolean;
  /**
   * Reads K and the two switches at the moment of deciding: once per attempt, after the output
   * arrived and before it is judged. What it returns overrides the fixed options above for that
   * attempt, so a campaign setting changed mid-run counts from the next attempt on. Wire a
   * campaign's settings here (the TRPG example's `trpgSettings` has `conflict.max_retries`,
   * `conflict.intercept_output` and `conflict.retry_with_debug`). Its errors reject the run unchanged.
   */
  readonly policy?: () => ConflictPolicy | Promise<ConflictPolicy>;
  /**
   * The tools that change authoritative state. Each must be checked by a detector (one whose
   * `tools` names it), or `createConflictLoop` throws `unchecked_tool`: the document asks that
   * every new tool comes with its conflict check. Check a tool set earlier with
   * {@link checkToolCoverage}.
   */
  readonly stateTools?: readonly string[];
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
 * K and the switches of the reference document's section 7.2, as {@link ConflictLoopOptions.policy}
 * reads them for one attempt. A field left out keeps the loop's fixed option.
 *
 * @example
 * ```ts
 * import type { ConflictPolicy } from '@parley/conflict';
 *
 * const policy: ConflictPolicy = { maxRetries: 1, interceptOutput: true, retryWithDebug: false };
 * ```
 */
export interface ConflictPolicy {
  /** K: retries after the first attempt (0–100). */
  readonly maxRetries?: number | undefined;
  /** `intercept_output`: run the detectors on this attempt's output. */
  readonly interceptOutput?: boolean | undefined;
  /** `retry_with_debug`: regenerate with `conflict_debug` when this attempt has conflicts. */
  readonly retryWithDebug?: boolean | undefined;
}
