import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { findScenario, type Scenario } from '../src/scenarios.js';
import { DEMO_START, type RunOptions, runQuantPipeline } from '../src/run.js';

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

describe('the happy path', () => {
  it('passes review after one revise round and ends approved by the chairman', async () => {
    const { result, clock, text } = await run('happy');
    expect(result.status).toBe('approved');
    expect(Object.values(result.steps).map((s) => s.status)).toEqual(Array(8).fill('done'));
    expect(result.state).toMatchObject({ reviewRounds: 1, thesisVersions: 2 });
    expect(result.state.approval).toEqual({
      requestId: 'approval_1',
      state: 'approved',
      reason: 'Go, at half size on the first fill.',
    });
    expect(result.runs).toEqual({
      intel: ['intel-1'],
      structure: ['structure-1'],
      bull: ['bull-1'],
      bear: ['bear-1'],
      review: ['review-1', 'review-2'],
      data_analysis: ['data_analysis-1'],
    });
    expect(text).toContain('review-1 → quant_strategist  review_verdict: Review_Report.json → revise ✓');
    expect(text).toContain('↺ revise round 1/3 → quant_strategist: stop_loss');
    expect(text).toContain('converges → Strategy_Thesis.json v2: long, stop 80000');
    expect(text).toContain('review-2 → quant_strategist  review_verdict: Review_Report.json → pass ✓');
    expect(text).toContain('? [data_analysis] condition review.verdict == "pass": true');
    expect(text).toContain('quant_strategist → ceo_coo  deliver_report');
    expect(text).toContain('chairman in #approvals: approve');
    expect(result.notifications).toEqual([
      {
        channel: '#approvals',
        message: expect.stringMatching(/^@董事長 approve strategy \(approval_1\): long BTC\/USDT/),
      },
    ]);
    // nothing refused, nothing escalated, nothing left running
    expect(result.refusals).toEqual([]);
    expect(text).not.toContain('⛔');
    expect(result.state.escalation).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
    expect(result.timeline.at(-1)).toBe('finished quant_strategist');
  });

  it('runs bull and bear at the same time: both spawned before either announces', async () => {
    const { result } = await run('happy');
    const at = (event: string): number => result.timeline.indexOf(event);
    expect(at('spawned bull-1')).toBeGreaterThan(at('finished structure-1'));
    expect(at('spawned bear-1')).toBeLessThan(at('finished bull-1'));
    expect(at('spawned bull-1')).toBeLessThan(at('finished bear-1'));
    expect(result.maxRunning).toBe(3); // the strategist and the two researchers
  });

  it('keeps within the topology concurrency limit: with room for one run, bear waits for bull', async () => {
    const { result, text } = await run('happy', { maxConcurrent: 2 });
    const at = (event: string): number => result.timeline.indexOf(event);
    expect(result.status).toBe('approved');
    expect(result.maxRunning).toBe(2);
    expect(at('finished bull-1')).toBeLessThan(at('spawned bear-1'));
    expect(text).toContain('[bear] waits for a slot: concurrency_exceeded (2 running)');
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
    expect(result.state.approval).toMatchObject({ state: 'rejected', reason: 'not before the FOMC minutes' });
    expect(text).toContain('chairman in #approvals: reject — "not before the FOMC minutes"');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ends expired when the chairman does not answer within the approval timeout', async () => {
    const late = { ...scenario('happy'), chairman: { afterMs: 2 * 60 * 60_000, approve: true } };
    const { result, clock, text } = await run(late);
    expect(result.status).toBe('expired');
    expect(result.steps['approve']).toMatchObject({ status: 'failed', reason: 'approval expired' });
    expect(text).toContain('⏱ approval_1 expired: no answer in #approvals');
    expect(text).not.toContain('chairman in #approvals');
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('an incomplete report', () => {
  it('gets a missing_fields reply and the researcher is spawned again with request_clarification', async () => {
    const { result, text } = await run('missing-fields');
    expect(result.status).toBe('approved');
    expect(result.runs['bull']).toEqual(['bull-1', 'bull-2']);
    expect(result.runs['bear']).toEqual(['bear-1']);
    expect(text).toContain(
      'bull-1 → quant_strategist  deliver_report: Bullish_Brief.json ✗ invalid_payload: 2 issue(s)',
    );
    expect(text).toContain('quant_strategist → bull-1  missing_fields: key_levels[0].evidence, invalidation');
    expect(text).toContain(
      'quant_strategist → bull-2  request_clarification: missing key_levels[0].evidence, invalidation',
    );
    expect(text).toContain('bull-2 → quant_strategist  deliver_report: Bullish_Brief.json ✓');
    // the thesis is converged once, after the complete brief, never from the incomplete one
    expect(result.state.thesisVersions).toBe(1);
    const lines = result.transcript;
    const converged = lines.findIndex((l) => l.includes('converges'));
    expect(converged).toBeGreaterThan(lines.findIndex((l) => l.includes('bull-2 → quant_strategist')));
  });
});

describe('the review gate', () => {
  it('escalates to the CEO when the reviewer blocks, and skips analysis and approval', async () => {
    const { result, clock, text } = await run('blocked');
    expect(result.status).toBe('escalated');
    expect(result.steps['review']).toMatchObject({ status: 'escalated', reason: 'blocked' });
    expect(result.steps['data_analysis']).toMatchObject({ status: 'skipped', reason: 'review escalated' });
    expect(result.steps['approve']?.status).toBe('skipped');
    expect(result.state.escalation).toEqual({
      to: 'ceo_coo',
      reason: 'review of Strategy_Thesis.json: blocked',
      channel: '#approvals',
    });
    expect(text).toContain('quant_strategist → ceo_coo  escalate: review of Strategy_Thesis.json: blocked');
    expect(result.notifications).toEqual([
      { channel: '#approvals', message: '@董事長 review of Strategy_Thesis.json: blocked' },
    ]);
    // no revise round ran, nobody was asked to approve, the analyst was never spawned
    expect(result.state.reviewRounds).toBe(0);
    expect(result.state.approval).toBeUndefined();
    expect(result.runs['data_analysis']).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('escalates after three revise rounds, one of which re-spawns the bullish researcher', async () => {
    const { result, text } = await run('revise-limit');
    expect(result.status).toBe('escalated');
    expect(result.steps['review']).toMatchObject({ status: 'escalated', reason: 'revise_limit' });
    expect(result.runs['review']).toEqual(['review-1', 'review-2', 'review-3', 'review-4']);
    expect(result.runs['bull']).toEqual(['bull-1', 'bull-2']);
    expect(result.state).toMatchObject({ reviewRounds: 3, thesisVersions: 4 });
    expect(text).toContain('↺ revise round 2/3 → bullish_researcher: arguments[1].evidence');
    expect(text).toContain('↺ revise again (stop_loss): past the limit of 3 rounds');
    expect(text).not.toContain('round 4/3');
    expect(text).toContain('escalate: review of Strategy_Thesis.json: still "revise" after 3 rounds');
    expect(result.state.approval).toBeUndefined();
  });
});

describe('the error table', () => {
  it('re-spawns a timed-out agent with a notice, refuses its late announce, and reports model errors to #errors after one retry', async () => {
    const { result, clock, text } = await run('errors');
    expect(result.runs['intel']).toEqual(['intel-1', 'intel-2']);
    expect(text).toContain('⏱ intel-1 did not announce within 15 min → spawn again with a timeout notice');
    expect(result.refusals).toEqual(['late sessions spawn_1']);
    expect(result.runs['data_analysis']).toEqual(['data_analysis-1', 'data_analysis-2']);
    expect(text).toContain('↻ retrying data_analyst once');
    expect(result.steps['data_analysis']).toMatchObject({ status: 'failed', reason: 'model_error' });
    expect(result.steps['approve']?.status).toBe('skipped');
    expect(result.status).toBe('failed');
    expect(result.notifications).toEqual([
      {
        channel: '#errors',
        message: 'pipeline halted at data_analysis: model_error (data_analyst: 529 overloaded)',
      },
    ]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses an unknown scenario and an invalid pipeline before anything runs', async () => {
    await expect(runQuantPipeline({ scenario: 'nope' })).rejects.toThrow('Unknown scenario "nope"');
    await expect(runQuantPipeline({ pipeline: { name: 'x' } })).rejects.toThrow('Invalid pipeline');
  });
});
