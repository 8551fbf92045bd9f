import { createManualClock, createSequentialIds } from '@parley/core';
import { z } from 'zod';
import { defineIntents } from '../src/index.js';

/** Finance_Research_Brief.json of the reference protocol (section 4.5). */
export const FinanceResearchBrief = z.object({
  date: z.string(),
  market: z.string(),
  macro_summary: z.string(),
  key_events: z.array(
    z.object({ event: z.string(), impact: z.enum(['bullish', 'bearish', 'neutral']), source: z.string() }),
  ),
  sentiment: z.object({ overall: z.enum(['bullish', 'bearish', 'neutral']), score: z.number() }),
  data_sources: z.array(z.string()),
});

/** Market_Structure_Report.json of the reference protocol (section 4.5). */
export const MarketStructureReport = z.object({
  date: z.string(),
  market: z.string(),
  timeframes_analyzed: z.array(z.string()),
  structure: z.object({
    trend: z.enum(['bullish', 'bearish', 'ranging']),
    mss_detected: z.boolean(),
    key_levels: z.array(
      z.object({
        type: z.enum(['OB', 'FVG', 'POI', 'support', 'resistance']),
        price: z.number(),
        timeframe: z.string(),
        tested: z.boolean(),
      }),
    ),
  }),
  liquidity_zones: z.array(
    z.object({
      type: z.enum(['buy_side', 'sell_side']),
      range: z.tuple([z.number(), z.number()]),
      significance: z.enum(['high', 'medium', 'low']),
    }),
  ),
});

export const brief: z.input<typeof FinanceResearchBrief> = {
  date: '2026-04-10',
  market: 'BTC/USDT',
  macro_summary: 'CPI below consensus',
  key_events: [{ event: 'CPI print', impact: 'bullish', source: 'BLS' }],
  sentiment: { overall: 'bullish', score: 0.4 },
  data_sources: ['BLS', 'CoinGlass'],
};

export const structureReport: z.input<typeof MarketStructureReport> = {
  date: '2026-04-10',
  market: 'BTC/USDT',
  timeframes_analyzed: ['H4', 'H1'],
  structure: {
    trend: 'bullish',
    mss_detected: true,
    key_levels: [{ type: 'OB', price: 81250, timeframe: 'H4', tested: false }],
  },
  liquidity_zones: [{ type: 'sell_side', range: [79800, 80100], significance: 'high' }],
};

/** Two artifact intents over the seed's schemas, plus an assignment and a role rule. */
export function pipelineIntents() {
  return defineIntents({
    assign_task: { direction: 'down', payload: z.object({ task: z.string() }) },
    deliver_brief: { direction: 'up', payload: FinanceResearchBrief },
    deliver_structure: { direction: 'up', payload: MarketStructureReport },
    escalate: { direction: { toRole: 'ceo' }, payload: z.object({ reason: z.string() }) },
    review_verdict: {
      direction: { fromRole: 'reviewer', to: 'parent' },
      payload: z.object({ verdict: z.enum(['pass', 'revise', 'block']) }),
    },
  });
}

export function fakes(now = 1_000) {
  return { clock: createManualClock({ now }), generateId: createSequentialIds('env_') };
}

/** A wire envelope as a plain object, with overrides. */
export function wire(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'env_in',
    from: 'finance_researcher',
    to: 'quant_strategist',
    intent: 'deliver_brief',
    ref_task: 'quant-pipeline-2026-04-10',
    payload: brief,
    expect_response: false,
    sent_at: 500,
    spawn_depth: 2,
    ...overrides,
  };
}

export const text = (overrides: Record<string, unknown> = {}): string => JSON.stringify(wire(overrides));

/** An envelope on the wire from bob to the lead, with `extra` fields over the defaults. */
export function frame(intent: string, payload: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'e1',
    from: 'bob',
    to: 'lead',
    intent,
    payload,
    sent_at: 0,
    spawn_depth: 0,
    ...extra,
  });
}
