import { DEFAULT_MAX_REVISIONS } from '@parley/conflict';
import { parseCron } from './cron.js';
import type { NodeRecord, NodeStatus } from './records.js';
import type { PipelineDefinition } from './types.js';

const STYLES: Readonly<Record<NodeStatus, string>> = {
  pending: 'fill:#f4f4f4,stroke:#999',
  running: 'fill:#dbeafe,stroke:#2563eb',
  waiting: 'fill:#fef9c3,stroke:#ca8a04',
  done: 'fill:#dcfce7,stroke:#16a34a',
  skipped: 'fill:#f4f4f4,stroke:#999,stroke-dasharray:4',
  failed: 'fill:#fee2e2,stroke:#dc2626',
  escalated: 'fill:#ffedd5,stroke:#ea580c',
  rejected: 'fill:#fee2e2,stroke:#dc2626',
};

/**
 * Draws a pipeline as a Mermaid `flowchart TD` (without the fence): the trigger, each node shaped
 * by kind (task, review gate, human approval), dependencies, conditions on their edges, revise
 * loops and escalations; with `states`, each node is coloured by its live status.
 *
 * Use it in a README (generated, so it cannot drift) or on a dashboard with `runner.snapshot()`.
 *
 * @example
 * ```ts
 * import { definePipeline, toPipelineMermaid } from '@parley/pipeline';
 *
 * const pipeline = definePipeline({
 *   name: 'p',
 *   nodes: [
 *     { id: 'draft', kind: 'task', agent: 'writer' },
 *     { id: 'ok', kind: 'approval', dependsOn: ['draft'] },
 *   ],
 * });
 * console.log(toPipelineMermaid(pipeline, { draft: 'done' }).includes('class draft done')); // true
 * ```
 */
export function toPipelineMermaid(
  definition: PipelineDefinition,
  states?: Readonly<Record<string, NodeStatus | NodeRecord | undefined>>,
): string {
  const lines = ['flowchart TD'];
  const escalations = new Set<string>();
  const trigger = definition.trigger?.cron;
  if (trigger !== undefined) {
    const cron = parseCron(trigger);
    const words = cron.ok ? `<br/>${cron.value.description}` : '';
    lines.push(`  trigger(["${label(`cron "${trigger}"${words}`)}"])`);
  }
  for (const node of definition.nodes) {
    if (node.kind === 'approval') {
      const where = node.channel === undefined ? '' : ` · ${node.channel}`;
      lines.push(`  ${node.id}[/"${label(`${node.id}<br/>human approval${where}`)}"/]`);
      continue;
    }
    const output = node.output === undefined ? '' : `<br/>${node.output}`;
    const text = label(`${node.id}<br/>${node.agent} · ${node.action ?? 'spawn'}${output}`);
    lines.push(node.kind === 'review' ? `  ${node.id}{{"${text}"}}` : `  ${node.id}["${text}"]`);
    if (node.kind === 'review' && node.escalateTo !== undefined) escalations.add(node.escalateTo);
  }
  for (const target of escalations) lines.push(`  escalate_${target}[["escalate → ${target}"]]`);
  for (const node of definition.nodes) {
    if (node.dependsOn.length === 0 && trigger !== undefined) lines.push(`  trigger --> ${node.id}`);
    for (const dep of node.dependsOn) {
      const c = node.condition;
      lines.push(
        c === undefined || c.node !== dep
          ? `  ${dep} --> ${node.id}`
          : `  ${dep} -- "${label(`${c.node}.${c.field} ${c.op} "${c.value}"`)}" --> ${node.id}`,
      );
    }
    if (node.kind !== 'review') continue;
    const max = node.maxRevisions ?? DEFAULT_MAX_REVISIONS;
    lines.push(`  ${node.id} -. "revise (≤ ${max} rounds)" .-> ${node.reviews}`);
    if (node.escalateTo !== undefined) {
      lines.push(`  ${node.id} -. "revise > ${max}" .-> escalate_${node.escalateTo}`);
      lines.push(`  ${node.id} -. block .-> escalate_${node.escalateTo}`);
    }
  }
  if (states === undefined) return lines.join('\n');
  const byStatus = new Map<NodeStatus, string[]>();
  for (const node of definition.nodes) {
    const state = states[node.id];
    const status = typeof state === 'string' ? state : (state?.status ?? 'pending');
    byStatus.set(status, [...(byStatus.get(status) ?? []), node.id]);
  }
  for (const status of byStatus.keys()) lines.push(`  classDef ${status} ${STYLES[status]}`);
  for (const [status, ids] of byStatus) lines.push(`  class ${ids.join(',')} ${status}`);
  return lines.join('\n');
}

/** Mermaid labels are quoted; a double quote inside one is written as an entity. */
function label(text: string): string {
  return text.replaceAll('"', '#quot;');
}
