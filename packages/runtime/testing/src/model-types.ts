import type { Clock } from '@parley/core';

/**
 * What a model client is given besides the request: at least an optional abort signal (the
 * conflict loop's `GenerateContext` fits).
 *
 * @example
 * ```ts
 * import type { ModelCallContext } from '@parley/testing';
 *
 * const context: ModelCallContext = { signal: AbortSignal.timeout(1_000) };
 * ```
 */
export interface ModelCallContext {
  readonly signal?: AbortSignal | undefined;
}

/**
 * One scripted answer: a reply, a function of the request, a failure, or a hang (until the call's
 * signal aborts). `delayMs` makes the answer arrive that late on the clock.
 *
 * @example
 * ```ts
 * import type { ModelStep } from '@parley/testing';
 *
 * const steps: ModelStep<string>[] = [
 *   { reply: 'HP -3' },
 *   { fail: new Error('502 Bad Gateway') },
 *   { respond: (request) => `echo ${String(request)}` },
 *   { reply: 'slow', delayMs: 5_000 },
 *   { hang: true },
 * ];
 * ```
 */
export type ModelStep<TOutput, TRequest = unknown, TContext extends ModelCallContext = ModelCallContext> =
  | { readonly reply: TOutput; readonly delayMs?: number }
  | {
      /** Computes the answer from the request and the call record. */
      readonly respond: (
        request: TRequest,
        call: ModelCall<TOutput, TRequest, TContext>,
      ) => TOutput | Promise<TOutput>;
      readonly delayMs?: number;
    }
  | { readonly fail: unknown; readonly delayMs?: number }
  | { readonly hang: true };

/**
 * What a rule matches: a predicate on the request, or a string / pattern looked for in the
 * request's JSON text.
 *
 * @example
 * ```ts
 * import type { RequestMatcher } from '@parley/testing';
 *
 * const retries: RequestMatcher<{ feedback: unknown[] }> = (request) => request.feedback.length > 0;
 * ```
 */
export type RequestMatcher<TRequest> = string | RegExp | ((request: TRequest) => boolean);

/**
 * A step chosen by matching the request instead of by order; used at most `times` times
 * (unlimited when omitted).
 *
 * @example
 * ```ts
 * import type { ModelRule } from '@parley/testing';
 *
 * const rule: ModelRule<string> = { match: /dragon/, reply: 'Roll for initiative.', times: 1 };
 * ```
 */
export type ModelRule<
  TOutput,
  TRequest = unknown,
  TContext extends ModelCallContext = ModelCallContext,
> = ModelStep<TOutput, TRequest, TContext> & {
  readonly match: RequestMatcher<TRequest>;
  readonly times?: number;
};

/**
 * One call of a {@link ScriptedModel}, as recorded.
 *
 * @example
 * ```ts
 * import type { ModelCall } from '@parley/testing';
 *
 * const failed = (calls: readonly ModelCall<string>[]) => calls.filter((c) => c.status === 'failed');
 * ```
 */
export interface ModelCall<
  TOutput,
  TRequest = unknown,
  TContext extends ModelCallContext = ModelCallContext,
> {
  /** 1-based. */
  readonly n: number;
  readonly request: TRequest;
  readonly context: TContext | undefined;
  /** Clock time of the call, when the model has a clock. */
  readonly at: number | undefined;
  /** Which part of the script answered. */
  readonly source: 'rule' | 'script' | 'respond' | 'unscripted';
  readonly status: 'pending' | 'replied' | 'failed';
  readonly output?: TOutput;
  readonly error?: unknown;
}

/**
 * Options for {@link createScriptedModel}. Per call, the first matching `rules` entry answers,
 * then the next unused of `replies` followed by `steps`, then `respond`; nothing left is an
 * `unscripted_call` error.
 *
 * @example
 * ```ts
 * import { createFakeClock, type ScriptedModelOptions } from '@parley/testing';
 *
 * const options: ScriptedModelOptions<string> = {
 *   replies: ['first', 'second'],
 *   rules: [{ match: 'help', reply: 'How can I help?' }],
 *   clock: createFakeClock(),
 * };
 * ```
 */
export interface ScriptedModelOptions<
  TOutput,
  TRequest = unknown,
  TContext extends ModelCallContext = ModelCallContext,
> {
  /** Replies used in order, one per call. */
  readonly replies?: readonly TOutput[];
  /** Steps used in order after `replies`. */
  readonly steps?: readonly ModelStep<TOutput, TRequest, TContext>[];
  /** Steps chosen by matching the request; checked before the ordered script. */
  readonly rules?: readonly ModelRule<TOutput, TRequest, TContext>[];
  /** Answers any call the script does not cover. */
  readonly respond?: (
    request: TRequest,
    call: ModelCall<TOutput, TRequest, TContext>,
  ) => TOutput | Promise<TOutput>;
  /** Needed for `delayMs`; stamps `at` on each call. */
  readonly clock?: Clock;
  /** Names the model in failure messages; `ScriptedModel` by default. */
  readonly name?: string;
}

/**
 * A stand-in for a model client: an async function `(request, context?) => Promise<output>` that
 * answers from a script and records every call. Pass it as the conflict loop's `generate`, or call
 * it from any host code.
 *
 * @example
 * ```ts
 * import { createScriptedModel, type ScriptedModel } from '@parley/testing';
 *
 * const model: ScriptedModel<string> = createScriptedModel({ replies: ['hello'] });
 * console.log(await model('hi'), model.requests); // hello [ 'hi' ]
 * ```
 */
export interface ScriptedModel<
  TOutput,
  TRequest = unknown,
  TContext extends ModelCallContext = ModelCallContext,
> {
  (request: TRequest, context?: TContext): Promise<TOutput>;
  /** Every request received, in order. */
  readonly requests: readonly TRequest[];
  /** Every context received (`undefined` when none was passed), in order. */
  readonly contexts: readonly (TContext | undefined)[];
  /** Every call with how it was answered. */
  readonly calls: readonly ModelCall<TOutput, TRequest, TContext>[];
  /** The latest request, or `undefined` before the first call. */
  readonly lastRequest: TRequest | undefined;
  /** Ordered steps not used yet. */
  readonly remaining: number;
  /** Appends replies to the ordered script; returns the model. */
  reply(...outputs: TOutput[]): this;
  /** Appends a failure (the call rejects with `error`). */
  fail(error: unknown): this;
  /** Appends a call that never answers until its signal aborts. */
  hang(): this;
  /**
   * Drops the next `count` ordered steps (1 by default) unused, e.g. when the code under test took
   * another path than the script foresaw; rules stay. Returns the model.
   * @throws TestingError `invalid_argument` when `count` is not an integer from 0 to `remaining`.
   */
  skip(count?: number): this;
  /** Drops every ordered step left (rules stay), so `assertAllUsed` passes again. Returns the model. */
  clear(): this;
  /** Appends any steps. */
  enqueue(...steps: ModelStep<TOutput, TRequest, TContext>[]): this;
  /** Adds a rule: `step` answers requests that match, at most `times` times. */
  when(match: RequestMatcher<TRequest>, step: ModelStep<TOutput, TRequest, TContext>, times?: number): this;
  /**
   * Throws when ordered steps are left unused: the code under test called the model fewer times
   * than the script expected.
   *
   * @throws TestingError `assertion_failed`.
   */
  assertAllUsed(): void;
}
