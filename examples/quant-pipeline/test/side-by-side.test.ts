import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { DEMO_START, runQuantPipeline } from '../src/run.js';

async function run(markets?: readonly string[], scenario = 'happy') {
  const clock = createManualClock({ now: DEMO_START });
  const result = await runQuantPipeline({ scenario, clock, ...(markets === undefined ? {} : { markets }) });
  return { result, clock, text: result.transcript.join('\n') };
}

describe('the CEO and the secretary', () => {
  it('asks for today’s summary with a blocking send, while the strategist (depth 1) may not send', async () => {
    const { result, text } = await run();
    const lines = result.transcript;
    const replied = lines.findIndex((l) =>
      l.includes('ceo_coo ⇄ secretary  sessions_send (blocking): 今日摘要? → reply {"meetings":3'),
    );
    const assigned = lines.findIndex((l) => l.includes('ceo_coo → quant_strategist  assign_task'));
    expect(replied).toBeGreaterThan(-1);
    expect(assigned).toBeGreaterThan(replied); // the CEO waited for the reply
    expect(text).toContain(
      'quant_strategist → secretary sessions_send refused as it should be: send_not_allowed',
    );
  });
});

describe('session tools per depth', () => {
  it('gives the spawned researchers (depth 2) none and the strategist (depth 1) all but sessions_send', async () => {
    const { text } = await run();
    expect(text).toContain(
      'quant_strategist → intel-1  assign_task: Research macro, events and sentiment for BTC/USDT [session tools: none]',
    );
    expect(text).toMatch(
      /converge → Strategy_Thesis.json v1: .* \[session tools: sessions_spawn, subagents, sessions_list, sessions_history\]/,
    );
  });
});

describe('an incomplete report, clarified', () => {
  it('re-spawns the researcher with the previous report, the missing fields and the question', async () => {
    const { text } = await run(undefined, 'missing-fields');
    expect(text).toContain(
      'quant_strategist → bull-2  request_clarification: missing key_levels[0].evidence, invalidation — Fill in key_levels[0].evidence, invalidation and deliver Bullish_Brief.json again, complete. (+ previous_report)',
    );
  });
});

describe('two pipelines side by side', () => {
  it('runs one pipeline per market on one runner and one spawn tree, both to approval', async () => {
    const { result, clock, text } = await run(['BTC/USDT', 'ETH/USDT']);
    expect(result.sideBySide.map((r) => [r.runId, r.status])).toEqual([
      ['quant-pipeline-2026-04-10-btc', 'approved'],
      ['quant-pipeline-2026-04-10-eth', 'approved'],
    ]);
    expect(result.sideBySide.map((r) => r.steps['converge']?.output)).toMatchObject([
      { market: 'BTC/USDT' },
      { market: 'ETH/USDT' },
    ]);
    expect(result.runs['intel']).toEqual(['btc-intel-1', 'eth-intel-1']);
    // side by side: the second run's first spawn comes before the first run's first announce
    const lines = result.transcript;
    expect(lines.findIndex((l) => l.includes('as eth-intel-1'))).toBeLessThan(
      lines.findIndex((l) => l.includes('btc-intel-1 → quant_strategist')),
    );
    expect(result.maxRunning).toBeLessThanOrEqual(8); // the topology's concurrency limit holds
    expect(text).toContain('■ daily_quant_pipeline (quant-pipeline-2026-04-10-eth): approved');
    expect(clock.pendingTimers()).toBe(0);
  });
});
