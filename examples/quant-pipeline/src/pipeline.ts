// The pipeline of §4.4 ("Lobster DSL") as data, read by @parley/pipeline's DSL parser (known
// nodes, a DAG, `retry(converge, max=3)`, `escalate(ceo_coo)`, `review.verdict == "pass"`,
// `cron "…"`). Two steps go beyond the document's listing, from its own tables: the backtest
// results are reviewed too (§4.6 "回測結果提交": a review of Data_Analysis_Report.json), and the
// approval waits an hour for the chairman. The example adds one rule of its own: every step's
// output is an artifact it has a schema for.
import { parsePipeline as parseDsl, type PipelineDefinition } from '@parley/pipeline';
import { isArtifactName } from './artifacts.js';

const spawn = (id: string, agent: string, output: string, dependsOn: readonly string[] = []) => ({
  id,
  agent,
  action: 'spawn',
  output,
  ...(dependsOn.length === 0 ? {} : { depends_on: dependsOn }),
});

/** The pipeline as the document writes it (YAML turned into a JS object). */
export const DAILY_QUANT_PIPELINE = {
  name: 'daily_quant_pipeline',
  trigger: 'cron "30 7 * * 1-5"',
  owner: 'quant_strategist',
  steps: [
    spawn('intel', 'finance_researcher', 'Finance_Research_Brief.json'),
    spawn('structure', 'market_structure_researcher', 'Market_Structure_Report.json', ['intel']),
    spawn('bull', 'bullish_researcher', 'Bullish_Brief.json', ['structure']),
    spawn('bear', 'bearish_researcher', 'Bearish_Brief.json', ['structure']),
    { ...spawn('converge', 'quant_strategist', 'Strategy_Thesis.json', ['bull', 'bear']), action: 'self' },
    {
      ...spawn('review', 'reviewer', 'Review_Report.json', ['converge']),
      on_revise: 'retry(converge, max=3)',
      on_block: 'escalate(ceo_coo)',
    },
    {
      ...spawn('data_analysis', 'data_analyst', 'Data_Analysis_Report.json', ['review']),
      condition: 'review.verdict == "pass"',
    },
    {
      ...spawn('backtest_review', 'reviewer', 'Review_Report.json', ['data_analysis']),
      on_revise: 'retry(data_analysis, max=2)',
      on_block: 'escalate(ceo_coo)',
    },
    {
      id: 'approve',
      type: 'hitl',
      channel: '#approvals',
      depends_on: ['backtest_review'],
      condition: 'backtest_review.verdict == "pass"',
      timeout_ms: 60 * 60_000,
    },
  ],
};

/** The result of {@link parsePipeline}: the checked pipeline, or every issue with its path. */
export type ParsePipelineResult =
  | { readonly ok: true; readonly value: PipelineDefinition }
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
