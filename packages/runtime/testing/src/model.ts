import type { Clock } from '@parley/core';
import { TestingError } from './errors.js';
import { answer } from './internal/answer.js';
import { describe, plural } from './internal/format.js';
import { createModelScript, type Picked } from './internal/model-script.js';
import type {
  ModelCall,
  ModelCallContext,
  ModelStep,
  RequestMatcher,
  ScriptedModel,
  ScriptedModelOptions,
} from './model-types.js';

/**
 * Creates a {@link ScriptedModel}: a model client that answers from a script (replies in order,
 * rules that match the request, or a function), fails or hangs on cue, and records every request,
 * so a test can assert what the model was asked (for example, that retry feedback was appended).
 *
 * Use it wherever a host calls a model: as `generate` of `@parley/conflict`'s loop, as a review
 * gate's generator, or as a plain async function. A call the script does not cover rejects with
 * `unscripted_call`, naming the call number and the request.
 *
 * @throws TestingError (as a rejection) `unscripted_call` for a call the script does not cover;
 * `clock_required` / `invalid_argument` (thrown when scripting) for a `delayMs` without a clock
 * or a bad one.
 * @example
 * ```ts
 * import { createConflictLoop, defineDetector, type AttemptRequest, type Proposal } from '@parley/conflict';
 * import { createScriptedModel } from '@parley/testing';
 *
 * const model = createScriptedModel<Proposal, AttemptRequest<string>>({
 *   replies: [{ text: 'You have 99 HP.' }, { text: 'You have 12 HP.' }],
 * });
 * const hp = defineDetector<{ hp: number }>({
 *   name: 'hp',
 *   detect: (proposal, state) =>
 *     proposal.text.includes(`${state.hp} HP`)
 *       ? null
 *       : { expected_state_snippet: state, mismatch_reason: 'wrong HP', instructions: `Say ${state.hp} HP.` },
 * });
 * const loop = createConflictLoop<{ hp: number }>({ detectors: [hp] });
 * const outcome = await loop.run({ input: 'status?', generate: model, readState: () => ({ hp: 12 }) });
 * console.log(outcome.ok, model.requests[1]?.feedback[0]?.conflict_debug[0]?.mismatch_reason); // true wrong HP
 * ```
 */
export function createScriptedModel<
  TOutput,
  TRequest = unknown,
  TContext extends ModelCallContext = ModelCallContext,
>(
  options: ScriptedModelOptions<TOutput, TRequest, TContext> = {},
): ScriptedModel<TOutput, TRequest, TContext> {
  type Step = ModelStep<TOutput, TRequest, TContext>;
  type Call = ModelCall<TOutput, TRequest, TContext>;
  const name = options.name ?? 'ScriptedModel';
  const clock = options.clock;
  const script = createModelScript<TOutput, TRequest, TContext>(name, clock, options.respond);
  const { queue, check } = script;
  const calls: Call[] = [];
  const requests: TRequest[] = [];
  const contexts: (TContext | undefined)[] = [];

  const model = (request: TRequest, context?: TContext): Promise<TOutput> => {
    const n = calls.length + 1;
    requests.push(request);
    contexts.push(context);
    const picked = script.pick(request);
    const record: CallRecord<TOutput, TRequest, TContext> = {
      n,
      request,
      context,
      at: clock?.now(),
      source: picked?.source ?? 'unscripted',
      status: 'pending',
    };
    calls.push(record);
    if (picked !== undefined) return runStep(picked, record, clock);
    const error = new TestingError(
      'unscripted_call',
      `${name}: unscripted call #${n} — the script answered ${plural(calls.length - 1, 'call')} and has nothing left` +
        `${script.hasRules ? ' (no rule matched)' : ''}. Request: ${describe(request, 500)}`,
      { details: { call: n, request: describe(request, 500) } },
    );
    record.status = 'failed';
    record.error = error;
    return Promise.reject(error);
  };

  const api = {
    reply(...outputs: TOutput[]) {
      for (const reply of outputs) queue.push({ reply });
      return scripted;
    },
    fail(error: unknown) {
      queue.push({ fail: error });
      return scripted;
    },
    hang() {
      queue.push({ hang: true });
      return scripted;
    },
    skip(count = 1) {
      script.skip(count);
      return scripted;
    },
    clear() {
      queue.length = 0;
      return scripted;
    },
    enqueue(...steps: Step[]) {
      for (const step of steps) queue.push(check(step));
      return scripted;
    },
    when(match: RequestMatcher<TRequest>, step: Step, times?: number) {
      script.addRule({ ...check(step), match, ...(times === undefined ? {} : { times }) });
      return scripted;
    },
    assertAllUsed: () => script.assertAllUsed(calls.length),
  };

  const scripted = Object.defineProperties(Object.assign(model, api), {
    requests: { get: () => requests, enumerable: true },
    contexts: { get: () => contexts, enumerable: true },
    calls: { get: () => calls, enumerable: true },
    lastRequest: { get: () => requests.at(-1), enumerable: true },
    remaining: { get: () => queue.length, enumerable: true },
  }) as unknown as ScriptedModel<TOutput, TRequest, TContext>; // the function now carries every member of the interface

  for (const reply of options.replies ?? []) queue.push({ reply });
  for (const step of options.steps ?? []) queue.push(check(step));
  for (const rule of options.rules ?? []) script.addRule(rule);
  return scripted;
}

/** A call's record, written as the call goes. */
type CallRecord<TOutput, TRequest, TContext extends ModelCallContext> = {
  -readonly [K in keyof ModelCall<TOutput, TRequest, TContext>]: ModelCall<TOutput, TRequest, TContext>[K];
};

/** Answers a call with its picked step (on the clock, until the call's signal aborts), recording how it went. */
function runStep<TOutput, TRequest, TContext extends ModelCallContext>(
  { step }: Picked<TOutput, TRequest, TContext>,
  record: CallRecord<TOutput, TRequest, TContext>,
  clock: Clock | undefined,
): Promise<TOutput> {
  const fail = (error: unknown): never => {
    record.status = 'failed';
    record.error = error;
    throw error;
  };
  const promise = answer<TOutput>(
    {
      hang: 'hang' in step,
      delayMs: 'hang' in step ? undefined : step.delayMs,
      run: () => {
        if ('fail' in step) return fail(step.fail);
        if ('respond' in step) return step.respond(record.request, record);
        return (step as { reply: TOutput }).reply;
      },
    },
    clock,
    record.context?.signal,
  );
  return promise.then(
    (output) => {
      record.status = 'replied';
      record.output = output;
      return output;
    },
    (error: unknown) => fail(error),
  );
}
