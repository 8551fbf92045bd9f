import { compileFlow, type FlowSource } from './flow-compile.js';
import { restoreFlow } from './flow-restore.js';
import { promptOf } from './flow-next.js';
import { submitFlow } from './flow-submit.js';
import type { FlowSnapshot, FlowStep, FlowSubmitResult } from './flow-types.js';
import type { CompiledMachine } from './internal/compiled.js';
import { COMPILED } from './machine.js';
import type { MachineOptions } from './types.js';

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

/** A new run's empty lists and records: shared and frozen, as snapshots are never changed in place. */
const EMPTY_LIST: readonly never[] = Object.freeze([]);
const EMPTY_RECORD: { readonly [key: string]: never } = Object.freeze({});

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
  const def = compileFlow(config as FlowSource);
  const { steps, compiled } = def;

  const flow: Flow<string, unknown> = {
    kind: 'flow',
    id: config.id,
    version: config.version,
    steps,
    start(options = {}) {
      const at = options.at ?? 0;
      let state = 'done';
      for (const step of steps) {
        if (step.skip?.({}) !== true) {
          state = step.name;
          break;
        }
      }
      return {
        machine: config.id,
        version: config.version,
        state,
        context: options.context ?? config.context ?? {},
        done: state === 'done',
        createdAt: at,
        updatedAt: at,
        deadlines: EMPTY_LIST,
        history: EMPTY_LIST,
        status: state === 'done' ? 'done' : 'active',
        fields: EMPTY_RECORD,
        part: 0,
        attempts: EMPTY_RECORD,
        mark: null,
        notices: EMPTY_LIST,
        reviews: EMPTY_LIST,
      };
    },
    prompt: (snapshot) => promptOf(def, snapshot),
    submit: (snapshot, submitted, options = {}) =>
      submitFlow(
        def,
        snapshot,
        submitted,
        options.at ?? snapshot.updatedAt,
        options.historyLimit ?? Number.POSITIVE_INFINITY,
      ),
    restore: (value) => restoreFlow(compiled, steps, def.partsOf, value),
    [COMPILED]: compiled,
  };
  return Object.freeze(flow) as unknown as Flow<NamesOf<TSteps>, TContext>; // typed views of the same functions
}
