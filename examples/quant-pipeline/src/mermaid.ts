// The pipeline as a Mermaid flowchart, generated from the same data the scheduler runs, so the
// README's diagram cannot drift from the pipeline (a test compares them).
import { isHitlStep, type Pipeline } from './pipeline.js';

/** Writes a checked pipeline as a Mermaid `flowchart TD` (without the ``` fence). */
export function toPipelineMermaid(pipeline: Pipeline): string {
  const lines = ['flowchart TD'];
  const escalations = new Set<string>();
  lines.push(
    `  trigger(["${label(`${pipeline.trigger.source}<br/>${pipeline.trigger.cron.description}`)}"])`,
  );
  for (const step of pipeline.steps) {
    if (isHitlStep(step)) {
      lines.push(`  ${step.id}[/"${label(`${step.id}<br/>human approval · ${step.channel}`)}"/]`);
      continue;
    }
    const text = label(`${step.id}<br/>${step.agent} · ${step.action}<br/>${step.output}`);
    lines.push(step.on_revise === undefined ? `  ${step.id}["${text}"]` : `  ${step.id}{{"${text}"}}`);
    if (step.on_block !== undefined) escalations.add(step.on_block.escalateTo);
  }
  for (const target of escalations) lines.push(`  escalate_${target}[["escalate → ${target}"]]`);
  for (const step of pipeline.steps) {
    if (step.depends_on.length === 0) lines.push(`  trigger --> ${step.id}`);
    for (const dep of step.depends_on) {
      lines.push(
        step.condition === undefined || step.condition.step !== dep
          ? `  ${dep} --> ${step.id}`
          : `  ${dep} -- "${label(step.condition.source)}" --> ${step.id}`,
      );
    }
    if (isHitlStep(step)) continue;
    const target = step.on_block?.escalateTo;
    if (step.on_revise !== undefined) {
      lines.push(`  ${step.id} -. "revise (≤ ${step.on_revise.max} rounds)" .-> ${step.on_revise.step}`);
      if (target !== undefined)
        lines.push(`  ${step.id} -. "revise > ${step.on_revise.max}" .-> escalate_${target}`);
    }
    if (target !== undefined) lines.push(`  ${step.id} -. block .-> escalate_${target}`);
  }
  return lines.join('\n');
}

/** Mermaid labels are quoted; a double quote inside one is written as an entity. */
function label(text: string): string {
  return text.replaceAll('"', '#quot;');
}
