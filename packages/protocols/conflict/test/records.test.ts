import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  type AttemptRecord,
  createConflictLoop,
  createReviewGate,
  defineDetector,
  type Proposal,
  type ReviewVerdict,
  type ToolGateLike,
} from '../src/index.js';
import { answers, moveCall, scripted } from './helpers.js';

const revise: ReviewVerdict = {
  verdict: 'revise',
  issues: [{ severity: 'major', field: 'stop_loss', description: 'Stop loss above entry' }],
};

const always = defineDetector<unknown>({
  name: 'always',
  detect: () => ({
    expected_state_snippet: { hp: 20 },
    mismatch_reason: 'contradiction',
    instructions: 'fix',
  }),
});

function collect(
  on: (event: 'attempt', listener: (p: { record: AttemptRecord<unknown> }) => void) => unknown,
) {
  const records: AttemptRecord<unknown>[] = [];
  on('attempt', ({ record }) => records.push(record));
  return records;
}

describe('attempt records: retries and escalated', () => {
  it('counts revise rounds so the escalating verdict reads 3 of 3, not 4', async () => {
    const gate = createReviewGate<number>({
      review: () => revise,
      maxRevisions: 3,
      clock: createManualClock(),
    });
    const seen = collect(gate.on);
    const outcome = await gate.run({ input: 'brief', generate: answers(1, 2, 3, 4) });
    expect(outcome).toMatchObject({ ok: false, code: 'revise_limit', retries: 3 });
    expect(seen.map((r) => r.status)).toEqual(['revise', 'revise', 'revise', 'revise']); // unchanged
    expect(seen.map((r) => r.retries)).toEqual([1, 2, 3, 3]);
    expect(seen.map((r) => r.escalated)).toEqual([false, false, false, true]);
    expect(seen.filter((r) => r.status === 'revise' && !r.escalated)).toHaveLength(3);
    expect(outcome.attempts).toEqual(seen);
  });

  it('marks a passing run as never escalated, with the rounds it used', async () => {
    const verdicts: ReviewVerdict[] = [revise, { verdict: 'pass' }];
    const gate = createReviewGate<number>({ review: () => verdicts.shift() as ReviewVerdict });
    const outcome = await gate.run({ input: 'brief', generate: answers(1, 2) });
    expect(outcome.ok).toBe(true);
    expect(outcome.attempts.map((r) => [r.status, r.retries, r.escalated])).toEqual([
      ['revise', 1, false],
      ['passed', 1, false],
    ]);
  });

  it('marks a block as escalated without counting a round', async () => {
    const gate = createReviewGate<number>({ review: () => ({ verdict: 'block', summary: 'no edge' }) });
    const outcome = await gate.run({ input: 'brief', generate: answers(1) });
    expect(outcome.attempts.map((r) => [r.status, r.retries, r.escalated])).toEqual([['blocked', 0, true]]);
  });

  it('counts conflict retries the same way: K retries, the last attempt escalated', async () => {
    const loop = createConflictLoop({ detectors: [always], maxRetries: 2 });
    const outcome = await loop.run({
      input: 'turn',
      readState: () => ({}),
      generate: answers<Proposal>({ text: 'a' }, { text: 'b' }, { text: 'c' }),
    });
    expect(outcome).toMatchObject({ ok: false, code: 'max_retries', retries: 2 });
    expect(outcome.attempts.map((r) => [r.status, r.retries, r.escalated])).toEqual([
      ['conflict', 1, false],
      ['conflict', 2, false],
      ['conflict', 2, true],
    ]);
  });

  it('marks only the generator error that exhausts its retry as escalated', async () => {
    const loop = createConflictLoop({ detectors: [] });
    const outcome = await loop.run({
      input: 'turn',
      readState: () => ({}),
      generate: scripted<Proposal>([{ fail: new Error('503') }, { fail: new Error('503') }]),
    });
    expect(outcome).toMatchObject({ ok: false, code: 'generator_failed' });
    expect(outcome.attempts.map((r) => [r.status, r.escalated])).toEqual([
      ['generator_error', false],
      ['generator_error', true],
    ]);
  });

  it('marks only the reviewer error that exhausts its retry as escalated', async () => {
    const gate = createReviewGate<number>({
      review: () => {
        throw new Error('reviewer down');
      },
    });
    const outcome = await gate.run({ input: 'brief', generate: answers(1, 2) });
    expect(outcome).toMatchObject({ ok: false, code: 'reviewer_failed' });
    expect(outcome.attempts.map((r) => [r.status, r.escalated])).toEqual([
      ['reviewer_error', false],
      ['reviewer_error', true],
    ]);
  });
});

describe('attempt records: typed failed calls', () => {
  const typedGate: ToolGateLike = (calls) => ({
    executed: [],
    feedback: {
      failed_calls: calls.map((call) => ({
        id: call.id,
        tool: call.tool,
        status: 'rejected' as const,
        reason: 'Invalid arguments: to_area_id: Required',
        code: 'invalid_args',
        tool_reason: 'area_locked',
        issues: [{ path: ['to_area_id'], pathText: 'to_area_id', message: 'Required' }],
        disabled_until: 'turn 5',
      })),
    },
  });

  async function runOnce(gate: ToolGateLike) {
    const loop = createConflictLoop({ detectors: [], gate, maxRetries: 1 });
    return loop.run({
      input: 'turn',
      readState: () => ({}),
      generate: answers<Proposal>(
        { text: 'I move', tool_calls: [moveCall('c1', 'vault')] },
        { text: 'I move', tool_calls: [moveCall('c2', 'vault')] },
      ),
    });
  }

  it("keeps the gate's code, tool_reason and issues in the attempt record", async () => {
    const outcome = await runOnce(typedGate);
    expect(outcome.attempts[0]?.toolFeedback?.failed_calls).toEqual([
      {
        id: 'c1',
        tool: 'move',
        status: 'rejected',
        reason: 'Invalid arguments: to_area_id: Required',
        disabled_until: 'turn 5',
        code: 'invalid_args',
        tool_reason: 'area_locked',
        issues: [{ path: ['to_area_id'], pathText: 'to_area_id', message: 'Required' }],
      },
    ]);
  });

  it("keeps the model's feedback and the report in the document's shape", async () => {
    const outcome = await runOnce(typedGate);
    const document = {
      id: 'c1',
      tool: 'move',
      status: 'rejected',
      reason: 'Invalid arguments: to_area_id: Required',
      disabled_until: 'turn 5',
    };
    expect(outcome.attempts[1]?.request.feedback[0]?.tool_feedback?.failed_calls).toEqual([document]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.report.history[0]?.tool_feedback?.failed_calls).toEqual([document]);
    expect(outcome.report.tool_feedback?.failed_calls).toEqual([{ ...document, id: 'c2' }]);
  });

  it('leaves out extras that are not shaped as the gate contract says', async () => {
    const sloppy: ToolGateLike = (calls) => ({
      executed: [],
      feedback: {
        failed_calls: calls.map((call, i) => ({
          id: call.id,
          tool: call.tool,
          status: 'error' as const,
          reason: 'boom',
          code: 42 as unknown as string,
          tool_reason: null as unknown as string,
          issues: (i === 0 ? 'bad' : [{ path: [{}], message: 'm' }, 'x']) as never,
        })),
      },
    });
    const outcome = await runOnce(sloppy);
    expect(outcome.attempts[0]?.toolFeedback?.failed_calls[0]).toEqual({
      id: 'c1',
      tool: 'move',
      status: 'error',
      reason: 'boom',
    });
    expect(outcome.attempts[1]?.toolFeedback?.failed_calls[0]).not.toHaveProperty('issues');
  });

  it('keeps issues without a path as they came', async () => {
    const gate: ToolGateLike = (calls) => ({
      executed: [],
      feedback: {
        failed_calls: calls.map((call) => ({
          id: call.id,
          tool: call.tool,
          status: 'rejected' as const,
          reason: 'bad args',
          issues: [{ message: 'Expected an object' }, { path: [{}] as never, message: 'odd path' }],
        })),
      },
    });
    const outcome = await runOnce(gate);
    expect(outcome.attempts[0]?.toolFeedback?.failed_calls[0]?.issues).toEqual([
      { message: 'Expected an object' },
      { message: 'odd path' },
    ]);
  });
});
