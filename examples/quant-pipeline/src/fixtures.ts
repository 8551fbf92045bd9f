// The scripted agents' reports: complete artifacts in the document's shapes, and the flawed
// versions the unhappy scenarios use.
import type {
  DataAnalysisReport,
  DirectionalBrief,
  FinanceResearchBrief,
  MarketStructureReport,
  ReviewReport,
  StrategyThesis,
} from './artifacts.js';

const date = '2026-04-10';
const market = 'BTC/USDT';

export const intelBrief: FinanceResearchBrief = {
  date,
  market,
  macro_summary: 'CPI in line; dollar index soft; ETF inflows resumed after two weeks of outflows.',
  key_events: [
    { event: 'US CPI 2.9% y/y, as expected', impact: 'neutral', source: 'BLS' },
    { event: 'Spot ETF net inflow $410M', impact: 'bullish', source: 'Farside' },
  ],
  sentiment: { overall: 'bullish', score: 0.35 },
  data_sources: ['BLS', 'Farside', 'CoinGlass'],
};

export const structureReport: MarketStructureReport = {
  date,
  market,
  timeframes_analyzed: ['H4', 'H1'],
  structure: {
    trend: 'bullish',
    mss_detected: true,
    key_levels: [
      { type: 'OB', price: 81_200, timeframe: 'H4', tested: false },
      { type: 'resistance', price: 86_500, timeframe: 'H4', tested: true },
    ],
  },
  liquidity_zones: [
    { type: 'buy_side', range: [86_400, 86_900], significance: 'high' },
    { type: 'sell_side', range: [80_100, 80_600], significance: 'medium' },
  ],
};

export const bullBrief: DirectionalBrief = {
  date,
  market,
  thesis: 'The H4 higher low above the 81.2k order block holds; continuation to 86.5k.',
  arguments: [
    {
      point: 'MSS on H4 with displacement',
      evidence: 'H4 close above 84.1k swing high on Apr 9',
      confidence: 0.7,
    },
    { point: 'ETF inflows resumed', evidence: 'Farside: +$410M on Apr 9', confidence: 0.6 },
  ],
  key_levels: [
    { type: 'support', price: 81_200, timeframe: 'H4', evidence: 'Untested H4 OB from Apr 8' },
    { type: 'resistance', price: 86_500, timeframe: 'H4', evidence: 'Equal highs, buy-side liquidity' },
  ],
  catalysts: ['ETF inflows', 'FOMC minutes Apr 12'],
  invalidation: 'An H4 close below 80.1k',
  confidence: 0.65,
  data_sources: ['TradingView', 'Farside'],
};

/** The bullish brief without the evidence of its first level and without `invalidation` (§4.4). */
const { invalidation: _invalidation, ...withoutInvalidation } = bullBrief;
export const bullBriefIncomplete = {
  ...withoutInvalidation,
  key_levels: [{ type: 'support', price: 81_200, timeframe: 'H4' }],
} as const;

export const bearBrief: DirectionalBrief = {
  date,
  market,
  thesis: 'Buy-side liquidity at 86.5k gets swept, then price returns to the 80.1k sell-side pool.',
  arguments: [{ point: 'Funding elevated', evidence: 'Binance funding 0.03% per 8h', confidence: 0.5 }],
  key_levels: [{ type: 'resistance', price: 86_500, timeframe: 'H4', evidence: 'Equal highs' }],
  catalysts: ['Options expiry Apr 11'],
  invalidation: 'Acceptance above 87k on H4',
  confidence: 0.4,
  data_sources: ['CoinGlass', 'Deribit'],
};

const baseThesis: StrategyThesis = {
  date,
  market,
  direction: 'long',
  thesis: 'Long the H4 order block retest toward the 86.5k buy-side liquidity.',
  entry_zone: [81_200, 81_800],
  stop_loss: 81_000,
  take_profit: [84_500, 86_400],
  risk_reward: 4.2,
  position_size_pct: 8,
  risk_assessment: {
    max_drawdown_pct: 3,
    bias_check: 'confirmed',
    bull_confidence: 0.65,
    bear_confidence: 0.4,
  },
  invalidation: 'An H4 close below 80.1k',
  requires_backtest: true,
};

/** The strategist's theses, version by version: v1 has a stop inside the order block's wick. */
export const theses: readonly StrategyThesis[] = [
  baseThesis,
  { ...baseThesis, stop_loss: 80_000, risk_reward: 2.6, position_size_pct: 5 },
  { ...baseThesis, stop_loss: 79_900, risk_reward: 2.5, position_size_pct: 4 },
  { ...baseThesis, stop_loss: 79_800, risk_reward: 2.4, position_size_pct: 4 },
];

function review(verdict: ReviewReport['verdict'], patch: Partial<ReviewReport> = {}): ReviewReport {
  return {
    date,
    reviewed_artifact: 'Strategy_Thesis.json',
    verdict,
    score: verdict === 'pass' ? 0.86 : verdict === 'revise' ? 0.58 : 0.2,
    issues: [],
    revise_target: 'quant_strategist',
    summary: verdict === 'pass' ? 'Schema complete; risk logic sound.' : 'See issues.',
    ...patch,
  };
}

export const reviewPass: ReviewReport = review('pass');

export const reviewReviseStop: ReviewReport = review('revise', {
  issues: [
    {
      severity: 'major',
      field: 'stop_loss',
      description: 'The stop at 81.0k sits inside the order block wick; one sweep stops it out.',
      suggestion: 'Move the stop below 80.1k and resize the position for the wider stop.',
    },
  ],
});

export const reviewReviseBull: ReviewReport = review('revise', {
  revise_target: 'bullish_researcher',
  issues: [
    {
      severity: 'major',
      field: 'arguments[1].evidence',
      description: 'One day of ETF inflow is not a trend.',
      suggestion: 'Give the five-day flow and compare it with the prior month.',
    },
  ],
});

export const reviewBlock: ReviewReport = review('block', {
  issues: [
    {
      severity: 'critical',
      field: 'position_size_pct',
      description: 'An 8% position against a 3% drawdown cap breaks the risk policy.',
      suggestion: 'Stop this thesis; the risk desk must set the sizing rule first.',
    },
  ],
  summary: 'Risk policy breach; not fixable by a revision.',
});

/** The backtest results, checked by the reviewer (§4.6 "回測結果提交": are the metrics plausible?). */
export const backtestPass: ReviewReport = review('pass', {
  reviewed_artifact: 'Data_Analysis_Report.json',
  revise_target: 'data_analyst',
  summary: 'Metrics plausible for 48 trades, costs included.',
});

export const backtestRevise: ReviewReport = review('revise', {
  reviewed_artifact: 'Data_Analysis_Report.json',
  revise_target: 'data_analyst',
  issues: [
    {
      severity: 'major',
      field: 'metrics.sharpe_ratio',
      description: 'A Sharpe of 3.4 over 48 trades is not plausible; fees and slippage look left out.',
      suggestion: 'Run the backtest again with 0.04% fees and one tick of slippage per side.',
    },
  ],
});

export const analysisReport: DataAnalysisReport = {
  date,
  analyzed_artifact: 'Backtest_Delivery.json',
  metrics: {
    total_trades: 48,
    win_rate: 0.46,
    profit_factor: 1.7,
    max_drawdown_pct: 6.2,
    sharpe_ratio: 1.3,
    avg_rr: 2.5,
  },
  insights: ['Order-block retests after an H4 MSS paid best in trending weeks.'],
  recommendation: 'proceed',
  summary: 'The setup held up over 18 months of H4 data.',
};

/** The first backtest, run without costs: the numbers the backtest review sends back. */
export const analysisNoCosts: DataAnalysisReport = {
  ...analysisReport,
  metrics: { ...analysisReport.metrics, win_rate: 0.58, profit_factor: 3.1, sharpe_ratio: 3.4 },
  summary: 'Strong results over 18 months of H4 data (gross of costs).',
};
