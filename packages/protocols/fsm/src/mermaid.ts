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
 * A state whose name is not a plain identifier, or is one Mermaid reads as a keyword (`default`,
 * `note`, `class`, `style`, `scale`, …), is drawn under a unique safe id (`wait_review_2`,
 * `s_default`) with its name as the label, so no two states ever share a node.
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
  const ids = nodeIds(c.names);
  const id = (name: string): string => ids.get(name) as string; // every state has an id
  const lines = ['stateDiagram-v2', ...aliases(ids), `  [*] --> ${id(c.names[c.initial] as string)}`];
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
  const ids = nodeIds(names); // a step is never named done, so the end keeps its id
  const id = (name: string): string => ids.get(name) ?? name; // or '[*]'
  const lines = ['stateDiagram-v2', ...aliases(ids), `  [*] --> ${id(names[0] as string)}`];
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
    lines.push(...failure(step, id));
  });
  lines.push('  done --> [*]');
  return `${lines.join('\n')}\n`;
}

function failure(step: FlowStep, id: (name: string) => string): string[] {
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

/** `state "name" as id` for every state drawn under another id than its name. */
function aliases(ids: ReadonlyMap<string, string>): string[] {
  return [...ids]
    .filter(([name, id]) => id !== name)
    .map(([name, id]) => `  state "${label(name)}" as ${id}`);
}

/**
 * Words Mermaid's state-diagram grammar reads as keywords wherever a state id stands (any case);
 * a state with such a name is drawn under another id, labelled with its name.
 */
const KEYWORDS: ReadonlySet<string> = new Set([
  'default',
  'note',
  'class',
  'classdef',
  'style',
  'scale',
  'state',
  'click',
  'href',
  'statediagram',
  'direction',
  'acctitle',
  'accdescr',
]);

/**
 * One id per name, unique and safe in Mermaid: a plain name that is no keyword is its own id;
 * any other gets its letters, digits and `_` (other characters as `_`, `s_` in front of a keyword or
 * a leading digit) and, when that id is taken, `_2`, `_3`, … in definition order.
 */
function nodeIds(names: readonly string[]): Map<string, string> {
  const plain = (name: string): boolean => /^[A-Za-z_]\w*$/.test(name) && !KEYWORDS.has(name.toLowerCase());
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of names) {
    if (!plain(name)) continue;
    ids.set(name, name);
    taken.add(name);
  }
  for (const name of names) {
    if (ids.has(name)) continue;
    const safe = name.replace(/[^A-Za-z0-9_]/g, '_');
    const base = plain(safe) ? safe : `s_${safe}`;
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    ids.set(name, id);
    taken.add(id);
  }
  return ids;
}

/**
 * Text as Mermaid shows it: `#`, `"`, `:` and `;` as the entity codes Mermaid decodes when it
 * renders (a colon or semicolon would end a label, a quote a state name), line breaks as spaces.
 */
function label(text: string): string {
  return text.replace(/[#":;]/g, (c) => `#${c.charCodeAt(0)};`).replace(/[\n\r]/g, ' ');
}
