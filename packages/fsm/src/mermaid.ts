import type { Flow } from './flow.js';
import type { FailurePolicy, FlowStep } from './flow-types.js';
import { COMPILED, type Machine } from './machine.js';

/**
 * Draws a machine or a flow as a Mermaid `stateDiagram-v2` diagram: the initial state, every
 * transition labelled with its event, guards as `[guard]`, timeouts as `after Nms`, final states
 * to `[*]`; for flows, skip conditions and each step's failure handling with the `mark` it sets
 * (e.g. `fail / retry, mark close_pending`). A failure policy given as a function is drawn as
 * `policy(fn)`, or by the step's `onFailureLabel`, which replaces the drawn text of any policy.
 *
 * Use it in docs, reviews and PR descriptions; the output is stable, so it can be golden-tested.
 *
 * @example
 * ```ts
 * import { requestMachine, toMermaid } from '@parley/fsm';
 *
 * console.log(toMermaid(requestMachine).split('\n')[0]); // stateDiagram-v2
 * ```
 */
export function toMermaid<TState extends string, TEvent extends string, TContext>(
  definition: Machine<TState, TEvent, TContext> | Flow<TState, TContext>,
): string {
  return 'kind' in definition
    ? drawFlow(definition as Flow<string, unknown>)
    : drawMachine(definition as never);
}

function drawMachine(machine: Machine<string, string, unknown>): string {
  const c = machine[COMPILED];
  const lines = ['stateDiagram-v2', ...aliases(c.names), `  [*] --> ${id(c.names[c.initial] as string)}`];
  c.names.forEach((name, i) => {
    const timeouts = new Map((c.after[i] ?? []).map((t) => [t.event, t.ms]));
    for (const [event, row] of c.table) {
      for (const t of row[i] ?? []) {
        const parts = [event];
        if (t.guardName !== undefined) parts.push(`[${t.guardName}]`);
        const ms = timeouts.get(event);
        if (ms !== undefined) parts.push(`(after ${ms}ms)`);
        if (t.internal) parts.push('(internal)');
        lines.push(`  ${id(name)} --> ${id(t.to)}: ${label(parts.join(' '))}`);
      }
    }
    if (c.final[i]) lines.push(`  ${id(name)} --> [*]`);
  });
  return `${lines.join('\n')}\n`;
}

function drawFlow(flow: Flow<string, unknown>): string {
  const steps = flow.steps as readonly FlowStep[];
  const names = [...steps.map((s) => s.name), 'done'];
  const lines = ['stateDiagram-v2', ...aliases(names), `  [*] --> ${id(names[0] as string)}`];
  steps.forEach((step, i) => {
    const next = names[i + 1] as string;
    const exit = step.exitLabel === undefined ? 'submit' : `submit [${step.exitLabel}]`;
    lines.push(`  ${id(step.name)} --> ${id(next)}: ${label(exit)}`);
    if (step.skip !== undefined) {
      const to = names[i + 1] as string;
      lines.push(
        `  ${id(names[i - 1] ?? '[*]')} --> ${id(to)}: ${label(`skip ${step.name} [${step.skipLabel ?? 'skip'}]`)}`,
      );
    }
    if (step.parts !== undefined && step.parts.length > 1) {
      lines.push(`  note right of ${id(step.name)}: ${label(`${step.parts.length} answers in sequence`)}`);
    }
    lines.push(...failure(step));
  });
  lines.push('  done --> [*]');
  return `${lines.join('\n')}\n`;
}

function failure(step: FlowStep): string[] {
  const from = id(step.name);
  const policy = step.onFailure;
  const line = (to: string, text: string, mark?: string): string[] => [
    `  ${from} --> ${id(to)}: ${label(`fail / ${step.onFailureLabel ?? text}${mark === undefined ? '' : `, mark ${mark}`}`)}`,
  ];
  // A function may decide anything: drawn by its label, never guessed from its code.
  if (typeof policy === 'function') return line(step.name, 'policy(fn)');
  const p: FailurePolicy = policy ?? { action: 'retry', message: '' };
  switch (p.action) {
    case 'back':
      return line(p.to, 'back', p.mark);
    case 'manual_review':
      return line(step.name, `manual review (${p.queue})`, p.mark);
    case 'default':
      return line(step.name, 'default with notice', p.mark);
    default:
      return line(step.name, p.action, p.mark);
  }
}

function aliases(names: readonly string[]): string[] {
  return names.filter((name) => id(name) !== name).map((name) => `  state "${name}" as ${id(name)}`);
}

function id(name: string): string {
  return name === '[*]' ? name : name.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Labels may not hold a colon or a line break in Mermaid. */
function label(text: string): string {
  return text.replace(/[:\n\r]/g, ' ');
}
