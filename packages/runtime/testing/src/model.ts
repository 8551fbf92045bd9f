import { TestingError } from './errors.js';
import { answer, checkDelay } from './internal/answer.js';
import { describe, plural } from './internal/format.js';
import type {
  ModelCall,
  ModelCallContext,
  ModelRule,
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
  const queue: Step[] = [];
  const rules: { rule: ModelRule<TOutput, TRequest, TContext>; left: number }[] = [];
  const calls: Call[] = [];
  const requests: TRequest[] = [];
  const contexts: (TContext | undefined)[] = [];

  function check(step: Step): Step {
    if (!('hang' in step)) checkDelay(name, step.delayMs, clock);
    return step;
  }

  function pick(request: TRequest): { step: Step; source: Call['source'] } | undefined {
    for (const entry of rules) {
      if (entry.left > 0 && matches(entry.rule.match, request)) {
        entry.left--;
        return { step: entry.rule, source: 'rule' };
      }
    }
    const next = queue.shift();
    if (next !== undefined) return { step: next, source: 'script' };
    if (options.respond !== undefined) return { step: { respond: options.respond }, source: 'respond' };
    return undefined;
  }

  function unscripted(n: number, request: TRequest): TestingError {
    const used = calls.length - 1;
    return new TestingError(
      'unscripted_call',
      `${name}: unscripted call #${n} — the script answered ${plural(used, 'call')} and has nothing left` +
        `${rules.length === 0 ? '' : ' (no rule matched)'}. Request: ${describe(request, 500)}`,
      { details: { call: n, request: describe(request, 500) } },
    );
  }

  const model = (request: TRequest, context?: TContext): Promise<TOutput> => {
    const n = calls.length + 1;
    requests.push(request);
    contexts.push(context);
    const picked = pick(request);
    const record: { -readonly [K in keyof Call]: Call[K] } = {
      n,
      request,
      context,
      at: clock?.now(),
      source: picked?.source ?? 'unscripted',
      status: 'pending',
    };
    calls.push(record);
    const fail = (error: unknown): never => {
      record.status = 'failed';
      record.error = error;
      throw error;
    };
    if (picked === undefined) {
      const error = unscripted(n, request);
      record.status = 'failed';
      record.error = error;
      return Promise.reject(error);
    }
    const { step } = picked;
    const promise = answer<TOutput>(
      {
        hang: 'hang' in step,
        delayMs: 'hang' in step ? undefined : step.delayMs,
        run: () => {
          if ('fail' in step) return fail(step.fail);
          if ('respond' in step) return step.respond(request, record);
          return (step as { reply: TOutput }).reply;
        },
      },
      clock,
      context?.signal,
    );
    return promise.then(
      (output) => {
        record.status = 'replied';
        record.output = output;
        return output;
      },
      (error: unknown) => fail(error),
    );
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
      if (!Number.isInteger(count) || count < 0 || count > queue.length) {
        throw new TestingError(
          'invalid_argument',
          `${name}: skip(${String(count)}) needs an integer from 0 to the ${plural(queue.length, 'step')} left`,
          { details: { count: String(count), left: queue.length } },
        );
      }
      queue.splice(0, count);
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
      addRule({ ...check(step), match, ...(times === undefined ? {} : { times }) });
      return scripted;
    },
    assertAllUsed() {
      if (queue.length === 0) return;
      throw new TestingError(
        'assertion_failed',
        `${name}: expected every scripted step to be used, but ${plural(queue.length, 'step')} ${queue.length === 1 ? 'is' : 'are'} left after ${plural(calls.length, 'call')}: ${queue.map((step) => describeStep(step)).join(', ')}`,
        { details: { left: queue.length, calls: calls.length } },
      );
    },
  };

  function addRule(rule: ModelRule<TOutput, TRequest, TContext>): void {
    const times = rule.times ?? Number.POSITIVE_INFINITY;
    if (!(times > 0) || (Number.isFinite(times) && !Number.isInteger(times))) {
      throw new TestingError(
        'invalid_argument',
        `${name}: a rule's times must be a positive integer, got ${times}`,
        {
          details: { times },
        },
      );
    }
    rules.push({ rule: check(rule) as ModelRule<TOutput, TRequest, TContext>, left: times });
  }

  const scripted = Object.defineProperties(Object.assign(model, api), {
    requests: { get: () => requests, enumerable: true },
    contexts: { get: () => contexts, enumerable: true },
    calls: { get: () => calls, enumerable: true },
    lastRequest: { get: () => requests.at(-1), enumerable: true },
    remaining: { get: () => queue.length, enumerable: true },
  }) as unknown as ScriptedModel<TOutput, TRequest, TContext>; // the function now carries every member of the interface

  for (const reply of options.replies ?? []) queue.push({ reply });
  for (const step of options.steps ?? []) queue.push(check(step));
  for (const rule of options.rules ?? []) addRule(rule);
  return scripted;
}

function matches<TRequest>(match: RequestMatcher<TRequest>, request: TRequest): boolean {
  if (typeof match === 'function') return match(request);
  const text = typeof request === 'string' ? request : describe(request, Number.POSITIVE_INFINITY);
  return typeof match === 'string' ? text.includes(match) : match.test(text);
}

function describeStep(step: object): string {
  if ('reply' in step) return `reply ${describe(step.reply, 80)}`;
  if ('fail' in step) return `fail ${describe(step.fail, 80)}`;
  if ('respond' in step) return 'respond(…)';
  return 'hang';
}
