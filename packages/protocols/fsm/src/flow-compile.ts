import { type StandardSchemaV1, validate } from '@parley/core';
import { FsmError } from './errors.js';
import type { StepParts } from './flow-restore.js';
import type { FlowPart, FlowStep } from './flow-types.js';
import { compileMachine, type CompiledMachine } from './internal/compiled.js';
import type { MachineOptions } from './types.js';

/** @internal What `defineFlow` checks and compiles: the options and the ordered steps. */
export interface FlowSource extends Omit<MachineOptions<unknown>, 'context'> {
  readonly context?: unknown;
  readonly steps: readonly FlowStep[];
}

/** @internal A checked flow definition: what `submit`, `prompt` and `restore` read. */
export interface FlowDefinition {
  readonly id: string;
  readonly version: number;
  readonly steps: readonly FlowStep[];
  /** Step name → index. */
  readonly byName: ReadonlyMap<string, number>;
  /** The parts of each step (one part for a plain `fields` schema). */
  readonly partsOf: readonly StepParts[];
  readonly compiled: CompiledMachine;
}

/**
 * @internal Checks a flow's steps and compiles them to a machine whose states are the step names
 * plus the final `done`, each moving to the next.
 */
export function compileFlow(config: FlowSource): FlowDefinition {
  const steps = config.steps;
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
  const compiled = compileMachine({
    ...config,
    context: config.context ?? {},
    initial: names[0] as string,
    states,
  });
  return {
    id: config.id,
    version: config.version,
    steps,
    byName: new Map(steps.map((step, i) => [step.name, i])),
    partsOf: steps.map(normaliseParts),
    compiled,
  };
}

/** Step parts, with a one-part step for a plain `fields` schema. */
function normaliseParts(step: FlowStep): StepParts {
  if (step.parts !== undefined) return step.parts;
  return [{ prompt: step.prompt, fields: step.fields as FlowStep['fields'] & object }];
}
