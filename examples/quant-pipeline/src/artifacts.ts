// The output schemas of §4.5 "輸出 Schema", one zod schema per artifact, field for field.
// Every field is required (the document's rule: a missing field comes back as `missing_fields`,
// never as a null), and the enums are the document's `a|b|c` alternatives.
import { z } from 'zod';

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');
const text = z.string().min(1);
const unit = z.number().min(0).max(1);
const price = z.number().nonnegative();
const timeframe = z.enum(['M15', 'H1', 'H4', 'D1', 'W1']);
const stance = z.enum(['bullish', 'bearish', 'neutral']);

/** Finance_Research_Brief.json, announced by the finance researcher (情報員). */
export const FinanceResearchBrief = z.object({
  date,
  market: text,
  macro_summary: text,
  key_events: z.array(z.object({ event: text, impact: stance, source: text })),
  sentiment: z.object({ overall: stance, score: z.number().min(-1).max(1) }),
  data_sources: z.array(text).min(1),
});

/** Market_Structure_Report.json, announced by the market-structure researcher. */
export const MarketStructureReport = z.object({
  date,
  market: text,
  timeframes_analyzed: z.array(timeframe).min(1),
  structure: z.object({
    trend: z.enum(['bullish', 'bearish', 'ranging']),
    mss_detected: z.boolean(),
    key_levels: z.array(
      z.object({
        type: z.enum(['OB', 'FVG', 'POI', 'support', 'resistance']),
        price,
        timeframe,
        tested: z.boolean(),
      }),
    ),
  }),
  liquidity_zones: z.array(
    z.object({
      type: z.enum(['buy_side', 'sell_side']),
      range: z.tuple([price, price]),
      significance: z.enum(['high', 'medium', 'low']),
    }),
  ),
});

/** Bullish_Brief.json and Bearish_Brief.json share one shape (§4.5). */
const DirectionalBrief = z.object({
  date,
  market: text,
  thesis: text.describe('核心論點(一句話)'),
  arguments: z.array(z.object({ point: text, evidence: text, confidence: unit })).min(1),
  key_levels: z.array(
    z.object({ type: z.enum(['support', 'resistance']), price, timeframe, evidence: text }),
  ),
  catalysts: z.array(text),
  invalidation: text.describe('什麼條件下論點失效'),
  confidence: unit,
  data_sources: z.array(text).min(1),
});

/** Bullish_Brief.json, announced by the bullish researcher (多方研究員). */
export const BullishBrief = DirectionalBrief;
/** Bearish_Brief.json, announced by the bearish researcher (空方研究員). */
export const BearishBrief = DirectionalBrief;

/** Strategy_Thesis.json, the strategist's own convergence of the briefs. */
export const StrategyThesis = z.object({
  date,
  market: text,
  direction: z.enum(['long', 'short', 'neutral']),
  thesis: text.describe('收斂後的策略論點'),
  entry_zone: z.tuple([price, price]),
  stop_loss: price,
  take_profit: z.tuple([price, price]),
  risk_reward: z.number().nonnegative(),
  position_size_pct: z.number().min(0).max(100),
  risk_assessment: z.object({
    max_drawdown_pct: z.number().min(0).max(100),
    bias_check: z.enum(['confirmed', 'conflicting']),
    bull_confidence: unit,
    bear_confidence: unit,
  }),
  invalidation: text,
  requires_backtest: z.boolean(),
});

/** Review_Report.json, the reviewer's verdict (carried by `review_verdict`). */
export const ReviewReport = z.object({
  date,
  reviewed_artifact: text,
  verdict: z.enum(['pass', 'revise', 'block']),
  score: unit,
  issues: z.array(
    z.object({
      severity: z.enum(['critical', 'major', 'minor']),
      field: text,
      description: text,
      suggestion: text,
    }),
  ),
  revise_target: text.describe('quant_strategist|bullish_researcher|...'),
  summary: text,
});

/** Data_Analysis_Report.json, announced by the data analyst. */
export const DataAnalysisReport = z.object({
  date,
  analyzed_artifact: text,
  metrics: z.object({
    total_trades: z.number().int().nonnegative(),
    win_rate: unit,
    profit_factor: z.number().nonnegative(),
    max_drawdown_pct: z.number().min(0).max(100),
    sharpe_ratio: z.number(),
    avg_rr: z.number().nonnegative(),
  }),
  insights: z.array(text),
  recommendation: z.enum(['proceed', 'adjust', 'reject']),
  summary: text,
});

/** Artifact file name → its schema. */
export const ARTIFACT_SCHEMAS = {
  'Finance_Research_Brief.json': FinanceResearchBrief,
  'Market_Structure_Report.json': MarketStructureReport,
  'Bullish_Brief.json': BullishBrief,
  'Bearish_Brief.json': BearishBrief,
  'Strategy_Thesis.json': StrategyThesis,
  'Review_Report.json': ReviewReport,
  'Data_Analysis_Report.json': DataAnalysisReport,
} as const;

export type ArtifactName = keyof typeof ARTIFACT_SCHEMAS;
export type FinanceResearchBrief = z.infer<typeof FinanceResearchBrief>;
export type MarketStructureReport = z.infer<typeof MarketStructureReport>;
export type DirectionalBrief = z.infer<typeof DirectionalBrief>;
export type StrategyThesis = z.infer<typeof StrategyThesis>;
export type ReviewReport = z.infer<typeof ReviewReport>;
export type DataAnalysisReport = z.infer<typeof DataAnalysisReport>;

/** Tells whether a name is one of the artifacts above. */
export function isArtifactName(name: string): name is ArtifactName {
  return Object.hasOwn(ARTIFACT_SCHEMAS, name);
}
