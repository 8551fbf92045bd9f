import { createManualClock, isParleyError } from '@parley/core';
import { createScriptedModel, type ScriptedModel } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createReviewGate, type ReviewContext, type ReviewVerdict } from '../src/index.js';
import { answers, scripted } from './helpers.js';

interface Thesis {
  readonly version: number;
}

/** A reviewer that answers from a list (an Error fails that review) and records what it saw. */
function reviewerOf(...verdicts: unknown[]): ScriptedModel<ReviewVerdict, Thesis, ReviewContext<unknown>> {
  return createScriptedModel<ReviewVerdict, Thesis, ReviewContext<unknown>>({
    name: 'reviewer',
    steps: verdicts.map((verdict) =>
      verdict instanceof Error ? { fail: verdict } : { reply: verdict as ReviewVerdict },
    ),
  });
}

const revise = (target?: string): ReviewVerdict => ({
  verdict: 'revise',
  ...(target === undefined ? {} : { revise_target: target }),
  issues: [
    { severity: 'major', field: 'stop_loss', description: 'Stop loss above entry', suggestion: 'Lower it' },
  ],
});

const versions = (n: number) =>
  scripted<Thesis>(Array.from({ length: n }, (_, i) => ({ reply: { version: i + 1 } })));

describe('createReviewGate', () => {
  it('returns the output on pass', async () => {
    const review = reviewerOf({ verdict: 'pass', score: 0.9 });
    const outcome = await createReviewGate({ review }).run({ input: 'brief', generate: versions(1) });
    expect(outcome.ok && outcome.output).toEqual({ version: 1 });
    expect(outcome.attempts[0]).toMatchObject({ status: 'passed', verdict: { verdict: 'pass', score: 0.9 } });
  });

  it('re-runs the revise target with the issues appended to the previous request', async () => {
    const review = reviewerOf(revise('bullish_researcher'), { verdict: 'pass' });
    const generate = versions(2);
    const outcome = await createReviewGate({ review, targets: ['bullish_researcher'] }).run({
      input: 'brief',
      generate,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.retries).toBe(1);
    expect(generate.requests[0]).toEqual({ input: 'brief', feedback: [] });
    expect(generate.requests[1]).toMatchObject({
      input: 'brief',
      target: 'bullish_researcher',
      feedback: [
        {
          attempt: 1,
          conflict_debug: [],
          review: revise('bullish_researcher'),
          rejected_output: { version: 1 },
        },
      ],
    });
    expect(review.requests).toEqual([{ version: 1 }, { version: 2 }]);
    expect(review.contexts.map((context) => context?.revisions)).toEqual([0, 1]);
  });

  it('keeps the last revise target when a later revise names none', async () => {
    const generate = versions(3);
    const review = reviewerOf(revise('quant_strategist'), revise(), { verdict: 'pass' });
    await createReviewGate({ review }).run({ input: 'brief', generate });
    expect(generate.requests.map((request) => request.target)).toEqual([
      undefined,
      'quant_strategist',
      'quant_strategist',
    ]);
  });

  it('escalates with revise_limit when the reviewer asks for a 4th revise round', async () => {
    const clock = createManualClock({ now: 42 });
    const review = reviewerOf(revise('a'), revise('a'), revise('a'), revise('a'));
    const generate = versions(4);
    const outcome = await createReviewGate({ review, clock }).run({ input: 'brief', generate });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('revise_limit');
    expect(generate.requests).toHaveLength(4); // the first run and 3 revise rounds
    expect(outcome.retries).toBe(3);
    expect(outcome.report).toMatchObject({
      reason: 'revise_limit',
      attempts: 4,
      max_retries: 3,
      review: revise('a'),
      last_output: { version: 4 },
      created_at: 42,
    });
    expect(outcome.report.history.map((entry) => entry.status)).toEqual([
      'revise',
      'revise',
      'revise',
      'revise',
    ]);
  });

  it('escalates at once on block, without revising', async () => {
    const review = reviewerOf({ verdict: 'block', summary: 'risk limits breached' });
    const generate = versions(1);
    const outcome = await createReviewGate({ review }).run({ input: 'brief', generate });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('blocked');
    expect(outcome.report.summary).toBe('The reviewer blocked the output: risk limits breached');
    expect(generate.requests).toHaveLength(1);
  });

  it('summarises a block without a summary', async () => {
    const outcome = await createReviewGate({ review: reviewerOf({ verdict: 'block' }) }).run({
      input: 'b',
      generate: versions(1),
    });
    expect(outcome.ok || outcome.report.summary).toBe('The reviewer blocked the output.');
  });

  it('escalates with unknown_target when the revise target is not allowed', async () => {
    const generate = versions(1);
    const outcome = await createReviewGate({
      review: reviewerOf(revise('ceo')),
      targets: ['quant_strategist'],
    }).run({
      input: 'b',
      generate,
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('unknown_target');
    expect(outcome.report.summary).toContain('"ceo"');
    expect(generate.requests).toHaveLength(1);
  });

  it.each([
    ['not an object', 'pass', 'not an object'],
    ['an unknown verdict', { verdict: 'maybe' }, '"maybe"'],
    ['no verdict', {}, 'undefined'],
    ['issues that are not a list', { verdict: 'pass', issues: 'x' }, '"issues" is not a list'],
    ['an issue without description', { verdict: 'revise', issues: [{ field: 'x' }] }, 'no description'],
    [
      'an unknown severity',
      { verdict: 'revise', issues: [{ description: 'x', severity: 'high' }] },
      'severity',
    ],
    ['a revise without issues', { verdict: 'revise', issues: [] }, 'has no issues'],
    ['a revise_target that is not text', { verdict: 'pass', revise_target: 3 }, '"revise_target"'],
    ['a score that is not a number', { verdict: 'pass', score: 'high' }, '"score"'],
  ])('escalates with invalid_verdict for %s', async (_label, verdict, problem) => {
    const generate = versions(1);
    const outcome = await createReviewGate({ review: reviewerOf(verdict) }).run({ input: 'b', generate });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('invalid_verdict');
    expect(outcome.report.summary).toContain(problem);
    expect(outcome.attempts[0]?.status).toBe('invalid_verdict');
  });

  it('retries a reviewer that throws once, regenerating with the same request', async () => {
    const generate = versions(2);
    const review = reviewerOf(new Error('reviewer 503'), { verdict: 'pass' });
    const outcome = await createReviewGate({ review }).run({ input: 'b', generate });
    expect(outcome.ok).toBe(true);
    expect(outcome.retries).toBe(0);
    expect(outcome.attempts[0]).toMatchObject({
      status: 'reviewer_error',
      error: { message: 'reviewer 503' },
    });
    expect(generate.requests[1]).toEqual(generate.requests[0]);
  });

  it('ends in a reviewer_failed report when the reviewer throws again', async () => {
    const review = reviewerOf(new Error('503'), new Error('still 503'));
    const outcome = await createReviewGate({ review }).run({ input: 'b', generate: versions(2) });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('reviewer_failed');
    expect(outcome.report.error).toBe('still 503');
  });

  it('ends in a generator_failed report when the generator throws twice', async () => {
    const generate = scripted<Thesis>([{ fail: new Error('a') }, { fail: new Error('b') }]);
    const review = reviewerOf();
    const outcome = await createReviewGate({ review }).run({ input: 'b', generate });
    expect(outcome.ok || outcome.code).toBe('generator_failed');
    expect(review.requests).toEqual([]);
  });

  it('honours maxRevisions', async () => {
    const generate = versions(2);
    const outcome = await createReviewGate({ review: reviewerOf(revise(), revise()), maxRevisions: 1 }).run({
      input: 'b',
      generate,
    });
    expect(outcome.ok || outcome.code).toBe('revise_limit');
    expect(generate.requests).toHaveLength(2);
  });

  it('rejects with cancelled when aborted mid-loop, and reviews nothing more', async () => {
    const controller = new AbortController();
    const review = reviewerOf(revise());
    const gate = createReviewGate({ review });
    gate.on('attempt', () => controller.abort());
    const generate = scripted<Thesis>([{ reply: { version: 1 } }, { hang: true }]);
    let error: unknown;
    try {
      await gate.run({ input: 'b', generate, signal: controller.signal });
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect(generate.requests).toHaveLength(1);
    expect(review.requests).toHaveLength(1);
  });

  it('emits settled with the escalation code', async () => {
    const gate = createReviewGate({ review: reviewerOf({ verdict: 'block' }) });
    const settled: unknown[] = [];
    gate.on('settled', (payload) => settled.push(payload));
    await gate.run({ input: 'b', generate: answers({ version: 1 }) });
    expect(settled).toEqual([{ ok: false, code: 'blocked', attempts: 1 }]);
  });

  it.each([
    ['no review function', {}],
    ['targets that are not strings', { review: () => ({ verdict: 'pass' }), targets: [1] }],
    ['a negative maxRevisions', { review: () => ({ verdict: 'pass' }), maxRevisions: -1 }],
  ])('throws invalid_argument for %s', (_label, options) => {
    expect(() => createReviewGate(options as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('rejects with invalid_argument when generate is missing', async () => {
    const gate = createReviewGate({ review: () => ({ verdict: 'pass' }) });
    await expect(gate.run({ input: 'b' } as never)).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
