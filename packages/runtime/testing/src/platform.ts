import { TestingError } from './errors.js';
import { answer, checkDelay } from './internal/answer.js';
import { describe, plural } from './internal/format.js';
import type {
  FakePlatform,
  FakePlatformOptions,
  PlatformCall,
  PlatformError,
  PlatformErrorInit,
  PlatformRequest,
  PlatformResult,
  PlatformStep,
} from './platform-types.js';

/**
 * Creates a {@link FakePlatform}: the executor behind a cleanup-style flow (delete, takedown,
 * report…) that returns `success`, `partial` or `failed` with structured errors on cue, can throw
 * or hang like a broken transport, and records every call.
 *
 * Use it to test what a flow does with each outcome: retry the failed targets, fall back to
 * manual, notify. `timesCompleted(target)` proves a target was never acted on twice.
 *
 * @throws TestingError `clock_required` / `invalid_argument` for a `delayMs` without a clock or a bad one.
 * @example
 * ```ts
 * import { createFakePlatform } from '@parley/testing';
 *
 * const platform = createFakePlatform({
 *   script: [{ outcome: 'partial', failTargets: ['post/2'], error: { code: 'rate_limited', retryable: true } }],
 *   otherwise: 'success',
 * });
 * const first = await platform.execute({ action: 'takedown', targets: ['post/1', 'post/2'] });
 * console.log(first.status, first.errors[0]?.code); // partial rate_limited
 * const retry = await platform.execute({ action: 'takedown', targets: first.errors.map((e) => e.target ?? '') });
 * console.log(retry.status, platform.calls.length); // success 2
 * ```
 */
export function createFakePlatform(options: FakePlatformOptions = {}): FakePlatform {
  const name = options.name ?? 'FakePlatform';
  const clock = options.clock;
  const queue: PlatformStep[] = [];
  const calls: PlatformCall[] = [];
  const completed = new Map<string, number>();
  const failing = new Map<string, PlatformErrorInit>();

  function check(step: PlatformStep): PlatformStep {
    if (typeof step === 'object' && !('hang' in step)) checkDelay(name, step.delayMs, clock);
    return step;
  }
  if (options.otherwise !== undefined) check(options.otherwise);
  for (const step of options.script ?? []) queue.push(check(step));

  return {
    execute(request, executeOptions = {}) {
      const n = calls.length + 1;
      const call: { -readonly [K in keyof PlatformCall]: PlatformCall[K] } = {
        n,
        request,
        at: clock?.now(),
        status: 'pending',
      };
      calls.push(call);
      const threw = (error: unknown): never => {
        call.status = 'threw';
        call.error = error;
        throw error;
      };
      const problem = checkRequest(request);
      const step = problem === undefined ? (queue.shift() ?? options.otherwise) : undefined;
      if (problem !== undefined || step === undefined) {
        const error = refusal(name, n, request, problem);
        call.status = 'threw';
        call.error = error;
        return Promise.reject(error);
      }
      return answer(
        {
          hang: typeof step === 'object' && 'hang' in step,
          delayMs: typeof step === 'object' && !('hang' in step) ? step.delayMs : undefined,
          run: () => outcome(name, failing, step, request, call),
        },
        clock,
        executeOptions.signal,
      ).then((result) => {
        call.status = 'done';
        call.result = result;
        for (const target of result.completed) completed.set(target, (completed.get(target) ?? 0) + 1);
        return result;
      }, threw);
    },
    get calls() {
      return calls;
    },
    timesCompleted(target, action) {
      if (action === undefined) return completed.get(target) ?? 0;
      let times = 0;
      for (const call of calls) {
        if (call.request.action === action && call.result?.completed.includes(target) === true) times++;
      }
      return times;
    },
    failTarget(target, error = {}) {
      failing.set(target, error);
    },
    enqueue(...steps) {
      for (const step of steps) queue.push(check(step));
    },
    get remaining() {
      return queue.length;
    },
    assertAllUsed() {
      if (queue.length === 0) return;
      throw new TestingError(
        'assertion_failed',
        `${name}: expected every scripted step to be used, but ${plural(queue.length, 'step')} ${queue.length === 1 ? 'is' : 'are'} left after ${plural(calls.length, 'call')}`,
        { details: { left: queue.length, calls: calls.length } },
      );
    },
  };
}

function checkRequest(request: PlatformRequest): string | undefined {
  if (typeof request !== 'object' || request === null) return 'a request must be an object';
  if (typeof request.action !== 'string' || request.action === '') return 'a request needs an action';
  if (!Array.isArray(request.targets) || request.targets.some((t) => typeof t !== 'string')) {
    return 'a request needs targets: an array of strings';
  }
  return undefined;
}

function fits(failTargets: readonly string[], targets: readonly string[]): boolean {
  return (
    failTargets.length > 0 &&
    failTargets.length < targets.length &&
    failTargets.every((t) => targets.includes(t))
  );
}

/** Why a call is not answered: its request is malformed, or the script has nothing left. */
function refusal(
  name: string,
  n: number,
  request: PlatformRequest,
  problem: string | undefined,
): TestingError {
  return problem === undefined
    ? new TestingError(
        'unscripted_call',
        `${name}: unscripted call #${n} — the script answered ${plural(n - 1, 'call')} and has nothing left, and no \`otherwise\` was given. Request: ${describe(request, 500)}`,
        { details: { call: n, request: describe(request, 500) } },
      )
    : new TestingError('invalid_argument', `${name}: call #${n}: ${problem}`, {
        details: { call: n },
      });
}

function toError(
  init: PlatformErrorInit | undefined,
  target: string | undefined,
  action: string,
): PlatformError {
  return {
    ...(target === undefined ? {} : { target }),
    code: init?.code ?? 'platform_error',
    message: init?.message ?? `${action} failed${target === undefined ? '' : ` for ${target}`} (scripted)`,
    retryable: init?.retryable ?? false,
  };
}

/**
 * What a step answers to the request: a thrown error, its `respond`'s result, or the outcome over
 * the request's targets (a scripted partial's `failTargets`, and the targets `failTarget` marked,
 * fail).
 *
 * @throws TestingError `invalid_argument` for a scripted partial whose `failTargets` do not fit the request.
 */
function outcome(
  name: string,
  failing: ReadonlyMap<string, PlatformErrorInit>,
  step: PlatformStep,
  request: PlatformRequest,
  call: PlatformCall,
): PlatformResult | Promise<PlatformResult> {
  const kind = typeof step === 'string' ? step : 'outcome' in step ? step.outcome : undefined;
  if (typeof step === 'object' && 'throws' in step) throw step.throws;
  if (typeof step === 'object' && 'respond' in step) return step.respond(request, call);
  if (kind === 'failed') {
    const error = typeof step === 'object' && 'error' in step ? step.error : undefined;
    return { status: 'failed', completed: [], errors: [toError(error, undefined, request.action)] };
  }
  const scripted = typeof step === 'object' && 'failTargets' in step ? step : undefined;
  if (scripted !== undefined && !fits(scripted.failTargets, request.targets)) {
    throw new TestingError(
      'invalid_argument',
      `${name}: call #${call.n} was scripted partial with failTargets ${describe(scripted.failTargets)}, but the request's targets are ${describe(request.targets)}`,
      { details: { call: call.n } },
    );
  }
  const errors: PlatformError[] = [];
  const done: string[] = [];
  for (const target of request.targets) {
    if (scripted?.failTargets.includes(target) === true)
      errors.push(toError(scripted.error, target, request.action));
    else if (failing.has(target)) errors.push(toError(failing.get(target), target, request.action));
    else done.push(target);
  }
  const status = errors.length === 0 ? 'success' : done.length === 0 ? 'failed' : 'partial';
  return { status, completed: done, errors };
}
