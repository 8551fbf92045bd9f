import { type JsonValue, type StandardSchemaV1, validate } from '@parley/core';
import { FsmError } from './errors.js';
import type {
  FailurePolicy,
  FlowFields,
  FlowPart,
  FlowSnapshot,
  FlowStep,
  FlowSubmitResult,
} from './flow-types.js';
import { compileMachine, type CompiledMachine } from './internal/compiled.js';
import { restoreFlow, type StepParts } from './flow-restore.js';
import { isRecord } from './snapshot.js';
import type { MachineOptions } from './types.js';
import { COMPILED } from './machine.js';

/**
 * The configuration {@link defineFlow} takes.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { FlowConfig } from '@parley/fsm';
 *
 * const config: FlowConfig<readonly [{ name: 'goal'; prompt: string }], {}> = {
 *   id: 'intake', version: 1, context: {}, steps: [{ name: 'goal', prompt: 'What do you want?' }],
 * };
 * ```
 */
export interface FlowConfig<TSteps extends readonly FlowStep[], TContext>
  extends Omit<MachineOptions<TContext>, 'context'> {
  readonly context?: TContext;
  readonly steps: TSteps;
}

/**
 * A step flow: an ordered list of steps compiled to a machine whose states are the step names plus
 * the final `done`. Its functions are pure; run it with {@link createFlowSession}.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineFlow, type Flow } from '@parley/fsm';
 *
 * const flow: Flow<'goal', Record<string, never>> = defineFlow({
 *   id: 'intake',
 *   version: 1,
 *   steps: [{ name: 'goal', prompt: 'Goal?', fields: z.object({ goal: z.string() }) }],
 * });
 * ```
 */
export interface Flow<TStep extends string, TContext = unknown> {
  readonly kind: 'flow';
  readonly id: string;
  readonly version: number;
  readonly steps: readonly FlowStep<TStep, TStep>[];
  /** The snapshot of a new run at time `at` (0 by default), skipping steps whose `skip` holds. */
  start(options?: { readonly at?: number; readonly context?: TContext }): FlowSnapshot<TStep, TContext>;
  /** The current question: the prompt of the current step or part; `undefined` when done. */
  prompt(snapshot: FlowSnapshot<TStep, TContext>): string | undefined;
  /**
   * Validates `fields` against the current step (or part) and returns the next snapshot, or the
   * failure with the step's handling applied. Pure; `at` defaults to the snapshot's `updatedAt`.
   *
   * @throws FsmError `invalid_definition` when a failure policy function returns a `back` to a
   * step that is not earlier (nothing moves).
   */
  submit(
    snapshot: FlowSnapshot<TStep, TContext>,
    fields: unknown,
    options?: { readonly at?: number; readonly historyLimit?: number },
  ): FlowSubmitResult<TStep, TContext>;
  /**
   * Checks a persisted flow snapshot: everything `Machine.restore` checks, and that the snapshot is
   * reachable. Every step before the current one is completed with fields that pass its schema and
   * exit condition (or that its `default` policy stood in for, shown by a notice), or is skipped by
   * its skip condition evaluated on the restored fields; the current step holds exactly the answers
   * of the parts before `part`; no later step holds anything; the history is a chain of
   * `submit`/`default` moves forward and `back` moves backward ending in the current step; a
   * `blocked` status, a `mark`, `attempts`, `notices` and `reviews` fit the definition. Field schemas
   * are checked against the stored (already validated) fields, so a schema that transforms its
   * input must accept its own output. A refused snapshot is never partly loaded.
   *
   * @throws FsmError `invalid_snapshot`, `wrong_machine`, `version_mismatch`, `migration_failed`,
   * `unknown_state`, `invalid_context`, `invalid_fields`.
   */
  restore(value: unknown): FlowSnapshot<TStep, TContext>;
  /** @internal */
  readonly [COMPILED]: CompiledMachine;
}

type NamesOf<TSteps extends readonly FlowStep[]> = TSteps[number]['name'];

/**
 * Defines a step flow from an ordered list of steps, each with a prompt, a fields schema (any
 * Standard Schema), optional answers in sequence (`parts`), an exit condition, a failure policy
 * and an optional skip condition.
 *
 * Use it for strict conversational protocols (intake, approvals, the cleanup flow): the whole
 * protocol lives in the definition, and the host only performs the side effects between steps.
 *
 * @throws FsmError `invalid_definition` for a missing or duplicate step name, a `back` policy naming
 * a step that is not earlier (not itself, not a later one), a step with neither a schema nor parts,
 * or a `default` value that fails its step's schema (or one of its parts' schemas).
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { createFlowSession, defineFlow } from '@parley/fsm';
 *
 * const intake = defineFlow({
 *   id: 'intake',
 *   version: 1,
 *   steps: [
 *     { name: 'goal', prompt: 'What do you want?', fields: z.object({ goal: z.string().min(3) }) },
 *     {
 *       name: 'confirm',
 *       prompt: 'Confirm twice',
 *       parts: [
 *         { prompt: 'Type YES', fields: z.object({ confirm1: z.literal('YES') }) },
 *         { prompt: 'Type YES again', fields: z.object({ confirm2: z.literal('YES') }) },
 *       ],
 *       onFailure: { action: 'back', to: 'goal', message: 'Not confirmed; start again' },
 *     },
 *   ],
 * });
 * const session = createFlowSession(intake);
 * console.log(session.submit({}).ok, session.step); // false goal
 * session.submit({ goal: 'remove reposts' });
 * session.submit({ confirm1: 'YES' });
 * console.log(session.submit({ confirm2: 'YES' }).ok, session.done); // true true
 * ```
 */
export function defineFlow<
  const TSteps extends readonly FlowStep<string, string>[],
  TContext = Record<string, never>,
>(
  config: FlowConfig<TSteps, TContext> & {
    readonly steps: { readonly [I in keyof TSteps]: FlowStep<TSteps[I]['name'], NamesOf<TSteps>> };
  },
): Flow<NamesOf<TSteps>, TContext> {
  const steps = config.steps as readonly FlowStep[];
  const compiled = compileFlow(config, steps);
  const byName = new Map(steps.map((step, i) => [step.name, i]));
  const partsOf = steps.map(normaliseParts);
  type Snapshot = FlowSnapshot<string, unknown>;

  /** The first step from `from` on whose skip condition does not hold, or `done`. */
  function land(from: number, fields: FlowFields): { state: string; skipped: string[] } {
    const skipped: string[] = [];
    for (let i = from; i < steps.length; i++) {
      const step = steps[i] as FlowStep;
      if (step.skip?.(fields) !== true) return { state: step.name, skipped };
      skipped.push(step.name);
    }
    return { state: 'done', skipped };
  }

  function prompt(snapshot: Snapshot): string | undefined {
    const index = byName.get(snapshot.state);
    if (index === undefined) return undefined;
    return (partsOf[index] as StepParts)[snapshot.part]?.prompt;
  }

  const flow: Flow<string, unknown> = {
    kind: 'flow',
    id: config.id,
    version: config.version,
    steps,
    start(options = {}) {
      const at = options.at ?? 0;
      const { state } = land(0, {});
      return {
        machine: config.id,
        version: config.version,
        state,
        context: options.context ?? config.context ?? {},
        done: state === 'done',
        createdAt: at,
        updatedAt: at,
        deadlines: [],
        history: [],
        status: state === 'done' ? 'done' : 'active',
        fields: {},
        part: 0,
        attempts: {},
        mark: null,
        notices: [],
        reviews: [],
      };
    },
    prompt,
    submit(snapshot, submitted, options = {}) {
      const at = options.at ?? snapshot.updatedAt;
      const limit = options.historyLimit ?? Number.POSITIVE_INFINITY;
      const index = byName.get(snapshot.state);
      if (index === undefined) {
        return {
          ok: false,
          code: 'flow_done',
          step: 'done',
          reason: `Flow "${config.id}" is done; nothing more is asked`,
          snapshot,
        };
      }
      const step = steps[index] as FlowStep;
      const parts = partsOf[index] as StepParts;
      const part = parts[snapshot.part] ?? (parts[0] as (typeof parts)[number]);
      const moveTo = (state: string, patch: Partial<Snapshot>, event: string): Snapshot => {
        const history =
          state === snapshot.state && event === 'part'
            ? snapshot.history
            : [...snapshot.history, { from: snapshot.state, to: state, event, at }];
        return {
          ...snapshot,
          ...patch,
          state,
          done: state === 'done',
          updatedAt: at,
          history: history.length > limit ? history.slice(history.length - limit) : history,
        };
      };

      // 1. the current part's schema
      let failure:
        | {
            code: 'invalid_fields' | 'exit_failed';
            issues: Snapshot['reviews'][number]['issues'];
            missingFields: readonly string[];
            reason: string;
          }
        | undefined;
      let collected: Record<string, JsonValue> = { ...(snapshot.fields[step.name] ?? {}) };
      const checked = validate(part.fields, submitted);
      if (!checked.ok) {
        failure = {
          code: 'invalid_fields',
          issues: checked.issues,
          missingFields: checked.missingFields,
          reason: checked.issues
            .map((i) => (i.pathText === '' ? i.message : `${i.pathText}: ${i.message}`))
            .join('; '),
        };
      } else {
        collected = { ...collected, ...asFields(checked.value) };
        const last = snapshot.part >= parts.length - 1;
        if (!last) {
          const fields = { ...snapshot.fields, [step.name]: collected };
          const next = moveTo(step.name, { fields, part: snapshot.part + 1, status: 'active' }, 'part');
          return {
            ok: true,
            step: step.name,
            next: step.name,
            done: false,
            prompt: prompt(next),
            skipped: [],
            snapshot: next,
          };
        }
        // 2. the whole step's schema (when parts are merged) and its exit condition
        if (step.parts !== undefined && step.fields !== undefined) {
          const whole = validate(step.fields, collected);
          if (whole.ok) collected = { ...collected, ...asFields(whole.value) };
          else {
            failure = {
              code: 'invalid_fields',
              issues: whole.issues,
              missingFields: whole.missingFields,
              reason: whole.issues.map((i) => `${i.pathText}: ${i.message}`).join('; '),
            };
          }
        }
        if (failure === undefined && step.exit !== undefined) {
          const verdict = step.exit(collected, { ...snapshot.fields, [step.name]: collected });
          if (verdict !== true) {
            failure = {
              code: 'exit_failed',
              issues: [],
              missingFields: [],
              reason:
                typeof verdict === 'string'
                  ? verdict
                  : `The exit condition of "${step.name}" does not hold${step.exitLabel === undefined ? '' : ` (${step.exitLabel})`}`,
            };
          }
        }
      }

      if (failure === undefined) return advance(snapshot, step, index, collected, moveTo, undefined);

      // 3. the failure policy
      const attempts = (snapshot.attempts[step.name] ?? 0) + 1;
      const attemptsPatch = { ...snapshot.attempts, [step.name]: attempts };
      const policy: FailurePolicy =
        typeof step.onFailure === 'function'
          ? step.onFailure({ step: step.name, ...failure, attempts, submitted, collected: snapshot.fields })
          : (step.onFailure ?? { action: 'retry', message: failure.reason });
      const mark = policy.mark ?? snapshot.mark;
      const base = { step: step.name, ...failure, message: policy.message, attempts };
      switch (policy.action) {
        case 'default': {
          const fields = { ...snapshot.fields, [step.name]: { ...policy.value } };
          const notice = { step: step.name, message: policy.message, at };
          const withNotice: Snapshot = {
            ...snapshot,
            attempts: attemptsPatch,
            notices: [...snapshot.notices, notice],
            mark,
            fields,
          };
          return advance(withNotice, step, index, policy.value, moveTo, policy.message);
        }
        case 'back': {
          const to = byName.get(policy.to);
          if (to === undefined || to >= index) {
            // A static policy is checked by compileFlow; a policy function is checked here, as it runs.
            throw new FsmError(
              'invalid_definition',
              `Flow "${config.id}": the failure policy of "${step.name}" goes back to "${String(policy.to)}", which is not an earlier step`,
              { details: { flow: config.id, step: step.name, to: policy.to } },
            );
          }
          const fields: Record<string, FlowFields[string]> = { ...snapshot.fields };
          const attemptsBack: Record<string, number> = { ...attemptsPatch };
          for (let i = to; i <= index; i++) {
            delete fields[(steps[i] as FlowStep).name];
            if (i < index) delete attemptsBack[(steps[i] as FlowStep).name];
          }
          const next = moveTo(
            policy.to,
            { fields, part: 0, attempts: attemptsBack, mark, status: 'active' },
            'back',
          );
          return {
            ok: false,
            ...base,
            action: 'back',
            to: policy.to,
            prompt: prompt(next) as string,
            snapshot: next,
          };
        }
        case 'manual_review': {
          const review = {
            step: step.name,
            queue: policy.queue,
            submitted: toJson(submitted),
            issues: failure.issues,
            reason: failure.reason,
            at,
          };
          const next: Snapshot = {
            ...snapshot,
            attempts: attemptsPatch,
            mark,
            updatedAt: at,
            reviews: [...snapshot.reviews, review],
          };
          return {
            ok: false,
            ...base,
            action: 'manual_review',
            queue: policy.queue,
            prompt: prompt(next) as string,
            snapshot: next,
          };
        }
        default: {
          const status = policy.action === 'block' ? 'blocked' : snapshot.status;
          const next: Snapshot = { ...snapshot, attempts: attemptsPatch, mark, status, updatedAt: at };
          return {
            ok: false,
            ...base,
            action: policy.action,
            prompt: prompt(next) as string,
            snapshot: next,
          };
        }
      }
    },
    restore(value) {
      return restoreFlow(compiled, steps, partsOf, value);
    },
    [COMPILED]: compiled,
  };

  function advance(
    snapshot: Snapshot,
    step: FlowStep,
    index: number,
    data: { readonly [field: string]: JsonValue },
    moveTo: (state: string, patch: Partial<Snapshot>, event: string) => Snapshot,
    notice: string | undefined,
  ): FlowSubmitResult<string, unknown> {
    const fields = { ...snapshot.fields, [step.name]: data };
    const { state, skipped } = land(index + 1, fields);
    const status = state === 'done' ? 'done' : 'active';
    const event = notice === undefined ? 'submit' : 'default';
    const next = moveTo(
      state,
      { ...snapshot, fields, part: 0, status, mark: notice === undefined ? null : snapshot.mark },
      event,
    );
    const nextPrompt = prompt(next);
    return {
      ok: true,
      step: step.name,
      next: state,
      done: state === 'done',
      ...(nextPrompt === undefined ? {} : { prompt: nextPrompt }),
      skipped,
      ...(notice === undefined ? {} : { notice }),
      snapshot: next,
    };
  }

  return Object.freeze(flow) as unknown as Flow<NamesOf<TSteps>, TContext>; // typed views of the same functions
}

/** @internal Step parts, with a one-part step for a plain `fields` schema. */
function normaliseParts(step: FlowStep): StepParts {
  if (step.parts !== undefined) return step.parts;
  return [{ prompt: step.prompt, fields: step.fields as FlowStep['fields'] & object }];
}

function compileFlow(
  config: FlowConfig<readonly FlowStep[], unknown>,
  steps: readonly FlowStep[],
): CompiledMachine {
  const invalid = (message: string, details: Record<string, unknown> = {}): FsmError =>
    new FsmError('invalid_definition', `Flow "${String(config.id)}": ${message}`, {
      details: { flow: config.id, ...details },
    });
  if (!Array.isArray(steps) || steps.length === 0) throw invalid('it needs at least one step');
  const names = steps.map((step) => step.name);
  for (const [i, step] of steps.entries()) {
    if (typeof step.name !== 'string' || step.name === '' || step.name === 'done') {
      throw invalid(`step ${i} needs a name other than "done"`, { step: i });
    }
    if (names.indexOf(step.name) !== i)
      throw invalid(`the step name "${step.name}" is used twice`, { step: step.name });
    if (step.fields === undefined && (step.parts === undefined || step.parts.length === 0)) {
      throw invalid(`"${step.name}" needs a fields schema or parts`, { step: step.name });
    }
    const policy = step.onFailure;
    if (typeof policy === 'object' && policy.action === 'back') {
      const to = names.indexOf(policy.to);
      if (to < 0 || to >= i) {
        throw invalid(
          `"${step.name}" goes back to "${policy.to}", which is ${to < 0 ? 'not a step' : 'not an earlier step'}`,
          { step: step.name, to: policy.to },
        );
      }
    }
    const parts: readonly FlowPart[] = step.parts ?? [];
    const schemas: StandardSchemaV1[] =
      step.fields === undefined ? parts.map((p) => p.fields) : [step.fields];
    if (
      typeof policy === 'object' &&
      policy.action === 'default' &&
      schemas.some((schema: StandardSchemaV1) => !validate(schema, policy.value).ok)
    ) {
      throw invalid(`the default value of "${step.name}" fails its schema`, { step: step.name });
    }
  }
  // States in order, each moving to the next: what restore and the drawing read.
  const states: Record<string, { on?: Record<string, string>; final?: boolean }> = {};
  names.forEach((name, i) => {
    states[name] = { on: { submit: names[i + 1] ?? 'done' } };
  });
  states.done = { final: true };
  return compileMachine({ ...config, context: config.context ?? {}, initial: names[0] as string, states });
}

/** Schema outputs are taken as the JSON they validated (documented: field schemas describe JSON). */
function asFields(value: unknown): Record<string, JsonValue> {
  return isRecord(value) ? (value as Record<string, JsonValue>) : {};
}

function toJson(value: unknown): JsonValue {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return null;
  }
}
