// The pipeline of §4.4 ("Lobster DSL") as data, read by @parley/pipeline's DSL parser (known
// nodes, a DAG, `retry(converge, max=3)`, `escalate(ceo_coo)`, `review.verdict == "pass"`,
// `cron "…"`); the example adds one rule of its own: every step's output is an artifact it has a
// schema for.
import {
  type ApprovalNode,
  parsePipeline as parseDsl,
  type PipelineDefinition,
  type ReviewNode,
  type TaskNode,
} from '@parley/pipeline';
import { type ArtifactName, isArtifactName } from './artifacts.js';

/** The pipeline exactly as the document writes it (YAML turned into a JS object). */
export const DAILY_QUANT_PIPELINE = {
  name: 'daily_quant_pipeline',
  trigger: 'cron "30 7 * * 1-5"',
  owner: 'quant_strategist',
  steps: [
    { id: 'intel', agent: 'finance_researcher', action: 'spawn', output: 'Finance_Research_Brief.json' },
    {
      id: 'structure',
      agent: 'market_structure_researcher',
      action: 'spawn',
      depends_on: ['intel'],
      output: 'Market_Structure_Report.json',
    },
    {
      id: 'bull',
      agent: 'bullish_researcher',
      action: 'spawn',
      depends_on: ['structure'],
      output: 'Bullish_Brief.json',
    },
    {
      id: 'bear',
      agent: 'bearish_researcher',
      action: 'spawn',
      depends_on: ['structure'],
      output: 'Bearish_Brief.json',
    },
    {
      id: 'converge',
      agent: 'quant_strategist',
      action: 'self',
      depends_on: ['bull', 'bear'],
      output: 'Strategy_Thesis.json',
    },
    {
      id: 'review',
      agent: 'reviewer',
      action: 'spawn',
      depends_on: ['converge'],
      output: 'Review_Report.json',
      on_revise: 'retry(converge, max=3)',
      on_block: 'escalate(ceo_coo)',
    },
    {
      id: 'data_analysis',
      agent: 'data_analyst',
      action: 'spawn',
      depends_on: ['review'],
      condition: 'review.verdict == "pass"',
      output: 'Data_Analysis_Report.json',
    },
    { id: 'approve', type: 'hitl', channel: '#approvals', depends_on: ['data_analysis'] },
  ],
} as const;

export type Pipeline = PipelineDefinition;
export type PipelineStep = Pipeline['nodes'][number];
export type AgentPipelineStep = Extract<PipelineStep, TaskNode | ReviewNode> & {
  readonly output: ArtifactName;
};
export type HitlPipelineStep = Extract<PipelineStep, ApprovalNode>;

/** The result of {@link parsePipeline}: the checked pipeline, or every issue with its path. */
export type ParsePipelineResult =
  | { readonly ok: true; readonly value: Pipeline }
  | { readonly ok: false; readonly issues: readonly string[] };

/** Checks a pipeline definition with @parley/pipeline, then that each output has a schema here. */
export function parsePipeline(data: unknown): ParsePipelineResult {
  const result = parseDsl(data);
  if (!result.ok) return result;
  const issues = result.value.nodes.flatMap((node, i) =>
    node.kind !== 'approval' && (node.output === undefined || !isArtifactName(node.output))
      ? [`steps[${i}].output: not an artifact the example has a schema for`]
      : [],
  );
  return issues.length === 0 ? result : { ok: false, issues };
}

/** Tells whether a step is the human-in-the-loop kind. */
export function isHitlStep(step: PipelineStep): step is HitlPipelineStep {
  return step.kind === 'approval';
}
