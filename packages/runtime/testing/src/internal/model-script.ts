// A scripted model's script: the steps in order, the rules that match a request, and their checks.
import type { Clock } from '@parley/core';
import { TestingError } from '../errors.js';
import type {
  ModelCall,
  ModelCallContext,
  ModelRule,
  ModelStep,
  RequestMatcher,
  ScriptedModelOptions,
} from '../model-types.js';
import { checkDelay } from './answer.js';
import { describe, plural } from './format.js';

/** @internal The script of one scripted model. */
export interface ModelScript<TOutput, TRequest, TContext extends ModelCallContext> {
  /** The steps left, in order. */
  readonly queue: ModelStep<TOutput, TRequest, TContext>[];
  /** Whether any rule was added. */
  readonly hasRules: boolean;
  /** @throws TestingError `clock_required` / `invalid_argument` for a bad `delayMs`. */
  check(step: ModelStep<TOutput, TRequest, TContext>): ModelStep<TOutput, TRequest, TContext>;
  /** @throws TestingError `invalid_argument` for `times` that is not a positive integer. */
  addRule(rule: ModelRule<TOutput, TRequest, TContext>): void;
  /** The step that answers this request: a matching rule's, the next one, or `respond`'s. */
  pick(request: TRequest): Picked<TOutput, TRequest, TContext> | undefined;
  /** @throws TestingError `invalid_argument` for a count that is not an integer from 0 to the steps left. */
  skip(count: number): void;
  /** @throws TestingError `assertion_failed` when steps are left after `calls` calls. */
  assertAllUsed(calls: number): void;
}

/** @internal A picked step and where it came from. */
export interface Picked<TOutput, TRequest, TContext extends ModelCallContext> {
  readonly step: ModelStep<TOutput, TRequest, TContext>;
  readonly source: ModelCall<TOutput, TRequest, TContext>['source'];
}

/** @internal Creates the script of the model `name` names. */
export function createModelScript<TOutput, TRequest, TContext extends ModelCallContext>(
  name: string,
  clock: Clock | undefined,
  respond: ScriptedModelOptions<TOutput, TRequest, TContext>['respond'],
): ModelScript<TOutput, TRequest, TContext> {
  type Step = ModelStep<TOutput, TRequest, TContext>;
  const queue: Step[] = [];
  const rules: { rule: ModelRule<TOutput, TRequest, TContext>; left: number }[] = [];
  const check = (step: Step): Step => {
    if (!('hang' in step)) checkDelay(name, step.delayMs, clock);
    return step;
  };
  return {
    queue,
    get hasRules() {
      return rules.length > 0;
    },
    check,
    addRule(rule) {
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
    },
    pick(request) {
      for (const entry of rules) {
        if (entry.left > 0 && matches(entry.rule.match, request)) {
          entry.left--;
          return { step: entry.rule, source: 'rule' };
        }
      }
      const next = queue.shift();
      if (next !== undefined) return { step: next, source: 'script' };
      if (respond !== undefined) return { step: { respond }, source: 'respond' };
      return undefined;
    },
    skip(count) {
      if (!Number.isInteger(count) || count < 0 || count > queue.length) {
        throw new TestingError(
          'invalid_argument',
          `${name}: skip(${String(count)}) needs an integer from 0 to the ${plural(queue.length, 'step')} left`,
          { details: { count: String(count), left: queue.length } },
        );
      }
      queue.splice(0, count);
    },
    assertAllUsed(calls) {
      if (queue.length === 0) return;
      throw new TestingError(
        'assertion_failed',
        `${name}: expected every scripted step to be used, but ${plural(queue.length, 'step')} ${queue.length === 1 ? 'is' : 'are'} left after ${plural(calls, 'call')}: ${queue.map((step) => describeStep(step)).join(', ')}`,
        { details: { left: queue.length, calls } },
      );
    },
  };
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
