import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { DEMO_START, type RunOptions, runQuantPipeline } from '../src/run.js';
import { findScenario, type Scenario } from '../src/scenarios.js';

const MIN = 60_000;

async function run(scenario: string | Scenario, options: Omit<RunOptions, 'scenario' | 'clock'> = {}) {
  const clock = createManualClock({ now: DEMO_START });
  const result = await runQuantPipeline({ scenario, clock, ...options });
  return { result, clock, text: result.transcript.join('\n') };
}

function scenario(name: string): Scenario {
  const found = findScenario(name);
  if (found === undefined) throw new Error(name);
  return found;
}

const statuses = (result: Awaited<ReturnType<typeof runQuantPipeline>>) =>
  Object.fromEntries(Object.entries(result.steps).map(([id, step]) => [id, step.status]));

describe('the happy path', () => {
  it('passes review after one revise round, passes the backtest review and ends approved', async () => {
    const { result, clock, text } = await run('happy');
    expect(result.status).toBe('approved');
    expect(Object.values(statuses(result))).toEqual(Array(9).fill('done'));
    expect(result.steps['converge']).toMatchObject({ attempts: 2, revision: 1 });
    expect(result.steps['approve']?.output).toMatchObject({ approved: true, by: 'chairman' });
    expect(result.runs).toEqual({
      intel: ['intel-1'],
      structure: ['structure-1'],
      bull: ['bull-1'],
      bear: ['bear-1'],
      review: ['review-1', 'review-2'],
      data_analysis: ['data_analysis-1'],
      backtest_review: ['backtest_review-1'],
    });
    expect(text).toContain('review-1 → quant_strategist  review_verdict: Review_Report.json → revise');
    expect(text).toContain('↺ [review] revise round 1/3 → quant_strategist: stop_loss');
    expect(text).toContain('converge → Strategy_Thesis.json v2: long, stop 80000');
    expect(text).toContain('? [data_analysis] condition review.verdict == "pass": true');
    expect(text).toContain('quant_strategist → backtest_review-1  review_request: Data_Analysis_Report.json');
    expect(text).toContain(
      'quant_strategist → ceo_coo  deliver_report: pipeline complete (1 revise round(s))',
    );
    expect(text).toContain('08:17:00  chairman in #approvals: approve');
    expect(result.notifications).toEqual([
      {
        channel: '#approvals',
        message: expect.stringMatching(
          /^@董事長 approve strategy \(quant-pipeline-2026-04-10\/approve\): long/,
        ),
      },
    ]);
    // nothing refused but the strategist's blocking send (depth 1), nothing left running or scheduled
    expect(result.transcript.filter((l) => l.includes('⛔'))).toEqual([
      expect.stringContaining('topology refused message: send_not_allowed'),
    ]);
    expect(clock.pendingTimers()).toBe(0);
    expect(result.timeline.at(-1)).toBe('finished quant_strategist');
  });

  it('runs bull and bear at the same time: both spawned before either announces', async () => {
    const { result } = await run('happy');
    const at = (event: string): number => result.timeline.indexOf(event);
    expect(at('spawned bull-1')).toBeGreaterThan(at('finished structure-1'));
    expect(at('spawned bear-1')).toBeLessThan(at('finished bull-1'));
    expect(result.maxRunning).toBe(3); // the strategist and the two researchers
  });

  it('keeps within the topology concurrency limit: with room for one run, bear waits for bull', async () => {
    const { result } = await run('happy', { maxConcurrent: 2 });
    const at = (event: string): number => result.timeline.indexOf(event);
    expect(result.status).toBe('approved');
    expect(result.maxRunning).toBe(2);
    expect(at('finished bull-1')).toBeLessThan(at('spawned bear-1'));
  });

  it('lets a person answer for the chairman, and a rejection ends the run rejected', async () => {
    const plans: string[] = [];
    const { result, clock, text } = await run('happy', {
      chairman: async (plan) => {
        plans.push(plan);
        return { approve: false, reason: 'not before the FOMC minutes' };
      },
    });
    expect(plans).toEqual(['long BTC/USDT 81200–81800, stop 80000, TP 84500/86400, size 5%']);
    expect(result.status).toBe('rejected');
    expect(result.steps['approve']).toMatchObject({
      status: 'rejected',
      reason: 'not before the FOMC minutes',
    });
    expect(text).toContain('chairman in #approvals: reject — "not before the FOMC minutes"');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ends expired when the chairman does not answer within the hour the approval waits', async () => {
    const late = { ...scenario('happy'), chairman: { afterMs: 2 * 60 * MIN, approve: true } };
    const { result, clock, text } = await run(late);
    expect(result.status).toBe('expired');
    expect(result.steps['approve']).toMatchObject({ status: 'failed', code: 'expired' });
    expect(text).toContain('09:05:00  ceo_coo: approval failed');
    expect(text).not.toContain('chairman in #approvals');
    expect(result.notifications.map((n) => n.channel)).toEqual(['#approvals']); // not #errors
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('the cron trigger', () => {
  it('fires the run at 07:30 on the injected clock, and waits over a weekend for Monday', async () => {
    const friday = await run('happy');
    expect(friday.result.runId).toBe('quant-pipeline-2026-04-10');
    expect(friday.text).toContain('07:30:00  ⏰ cron "30 7 * * 1-5" fired (scheduled 07:30:00 UTC)');
    expect(friday.text.indexOf('⏰')).toBeLessThan(friday.text.indexOf('spawns finance_researcher'));
    const clock = createManualClock({ now: Date.UTC(2026, 3, 11, 9, 0) }); // Saturday 09:00
    const monday = await runQuantPipeline({ scenario: 'happy', clock });
    expect(monday.runId).toBe('quant-pipeline-2026-04-13');
    expect(monday.transcript[1]).toContain('next 2026-04-13 07:30 UTC');
    expect(monday.status).toBe('approved');
    expect(monday.steps['intel']?.startedAt).toBe(Date.UTC(2026, 3, 13, 7, 30));
  });

  it('keeps every step in the store it is given, under the run the cron named', async () => {
    const store = createMemoryStore();
    await run('happy', { store });
    const entry = await store.getEntry('pipeline:node:quant-pipeline-2026-04-10:approve');
    expect(entry?.value).toMatchObject({
      kind: 'parley.pipeline.node', // a record of the durable kernel
      data: { status: 'done', output: { approved: true } },
    });
  });
});

describe('an incomplete report', () => {
  it('is refused as invalid_output and the researcher is spawned again with the missing fields', async () => {
    const { result, text } = await run('missing-fields');
    expect(result.status).toBe('approved');
    expect(result.runs['bull']).toEqual(['bull-1', 'bull-2']);
    expect(result.runs['bear']).toEqual(['bear-1']);
    expect(text).toContain('✗ bull-1: missing key_levels[0].evidence, invalidation → spawn again');
    expect(text).toContain(
      'quant_strategist → bull-2  request_clarification: missing key_levels[0].evidence, invalidation',
    );
    expect(result.steps['bull']).toMatchObject({ attempts: 2, failures: { invalid_output: 1 } });
    // the thesis is converged once, after the complete brief, never from the incomplete one
    expect(result.steps['converge']?.attempts).toBe(1);
    const lines = result.transcript;
    const converged = lines.findIndex((l) => l.includes('converge →'));
    expect(converged).toBeGreaterThan(lines.findIndex((l) => l.includes('bull-2 → quant_strategist')));
  });
});

describe('the review gates', () => {
  it('escalates to the CEO when the reviewer blocks, and skips analysis and approval', async () => {
    const { result, clock, text } = await run('blocked');
    expect(result.status).toBe('escalated');
    expect(result.steps['review']).toMatchObject({
      status: 'escalated',
      code: 'blocked',
      escalateTo: 'ceo_coo',
    });
    expect(result.steps['data_analysis']).toMatchObject({ status: 'skipped', reason: 'review escalated' });
    expect(result.steps['approve']?.status).toBe('skipped');
    expect(text).toContain('quant_strategist → ceo_coo  escalate: review of Strategy_Thesis.json: blocked');
    expect(result.notifications).toEqual([
      { channel: '#approvals', message: '@董事長 review of Strategy_Thesis.json: blocked' },
    ]);
    expect(result.runs['data_analysis']).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('escalates after three revise rounds, one of which re-spawns the bullish researcher', async () => {
    const { result, text } = await run('revise-limit');
    expect(result.status).toBe('escalated');
    expect(result.steps['review']).toMatchObject({ status: 'escalated', code: 'revise_limit' });
    expect(result.runs['review']).toEqual(['review-1', 'review-2', 'review-3', 'review-4']);
    expect(result.runs['bull']).toEqual(['bull-1', 'bull-2']);
    expect(result.steps['converge']).toMatchObject({ attempts: 4, revision: 3 });
    expect(text).toContain('↺ [review] revise round 2/3 → bullish_researcher: arguments[1].evidence');
    expect(text).not.toContain('round 4/3');
    expect(text).toContain('escalate: review of Strategy_Thesis.json: still "revise" after 3 rounds');
    expect(result.steps['approve']?.status).toBe('skipped');
  });

  it('reviews the backtest results: a revise re-runs the analyst with the issues, then passes', async () => {
    const { result, text } = await run('backtest-revise');
    expect(result.status).toBe('approved');
    expect(result.runs['data_analysis']).toEqual(['data_analysis-1', 'data_analysis-2']);
    expect(result.runs['backtest_review']).toEqual(['backtest_review-1', 'backtest_review-2']);
    expect(result.steps['data_analysis']).toMatchObject({
      revision: 1,
      output: { metrics: { sharpe_ratio: 1.3 } },
    });
    expect(text).toContain('↺ [backtest_review] revise round 1/2 → data_analyst: metrics.sharpe_ratio');
    expect(text).toMatch(/quant_strategist → data_analysis-2 {2}assign_task: .*/);
  });

  it('escalates a backtest the reviewer blocks, and nobody is asked to approve', async () => {
    const blocked = {
      ...scenario('backtest-revise'),
      agents: {
        ...scenario('backtest-revise').agents,
        backtest_review: [
          { kind: 'announce', afterMs: 3 * MIN, report: { ...reviewOf('block'), summary: 'Curve-fitted' } },
        ] as const,
      },
    };
    const { result, text } = await run(blocked);
    expect(result.status).toBe('escalated');
    expect(result.steps['backtest_review']).toMatchObject({ status: 'escalated', code: 'blocked' });
    expect(text).toContain('escalate: review of Data_Analysis_Report.json: blocked');
    expect(result.steps['approve']).toMatchObject({ status: 'skipped', reason: 'backtest_review escalated' });
  });
});

describe('the error table', () => {
  it('re-spawns a timed-out agent, ignores its late announce, and reports model errors to #errors after one retry', async () => {
    const { result, clock, text } = await run('errors');
    expect(result.runs['intel']).toEqual(['intel-1', 'intel-2']);
    expect(text).toContain('⏱ intel-1 did not announce within 15 min → spawn again with a timeout notice');
    expect(text).toContain('⛔ [intel] late_result');
    expect(result.runs['data_analysis']).toEqual(['data_analysis-1', 'data_analysis-2']);
    expect(text).toContain('⚠ data_analysis-1 failed: model API error (529 overloaded) → retry once');
    expect(result.steps['data_analysis']).toMatchObject({ status: 'failed', code: 'error' });
    expect(result.steps['approve']?.status).toBe('skipped');
    expect(result.status).toBe('failed');
    expect(result.notifications).toEqual([
      {
        channel: '#errors',
        message: 'pipeline halted at data_analysis: error (model API error (529 overloaded))',
      },
    ]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses an unknown scenario and an invalid pipeline before anything runs', async () => {
    await expect(runQuantPipeline({ scenario: 'nope' })).rejects.toThrow('Unknown scenario "nope"');
    await expect(runQuantPipeline({ pipeline: { name: 'x' } })).rejects.toThrow('Invalid pipeline');
  });
});

function reviewOf(verdict: 'block') {
  return {
    date: '2026-04-10',
    reviewed_artifact: 'Data_Analysis_Report.json',
    verdict,
    score: 0.1,
    issues: [
      { severity: 'critical', field: 'metrics', description: 'Fitted to the sample', suggestion: 'Stop' },
    ],
    revise_target: 'data_analyst',
  };
}
