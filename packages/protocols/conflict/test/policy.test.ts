import { createManualClock, isParleyError } from '@parley/core';
import { createFakeToolGate } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import {
  type ConflictPolicy,
  checkToolCoverage,
  createConflictLoop,
  defineDetector,
  type Proposal,
} from '../src/index.js';
import { answers, hpCall, rejection, hpClaims, moveClaims } from './helpers.js';

const state = { hp: 20, at: 'market' };
const readState = () => state;
const detectors = [hpClaims(), moveClaims()];
const claim: Proposal = { text: 'You lose 5 HP.' };
const settled: Proposal = { text: 'You lose 5 HP.', tool_calls: [hpCall('c1', -5)] };

describe('intercept_output', () => {
  it('off: no detector checks the output, and its calls still go to the gate', async () => {
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors, gate, interceptOutput: false });
    const outcome = await loop.run({
      input: 'x',
      generate: answers<Proposal>({
        text: 'You lose 5 HP and walk to the tavern.',
        tool_calls: [hpCall('c1', -1)],
      }),
      readState,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.retries).toBe(0);
    expect(outcome.appliedActions.map((action) => action.id)).toEqual(['c1']);
  });

  it('off: a malformed output is still refused by the shape check', async () => {
    const loop = createConflictLoop({ detectors, interceptOutput: false, maxRetries: 0 });
    const outcome = await loop.run({
      input: 'x',
      generate: answers({ nope: 1 } as unknown as Proposal),
      readState,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts[0]?.conflicts[0]?.detector).toBe('proposal_shape');
  });

  it('on (the default): the same claim is a conflict', async () => {
    const loop = createConflictLoop({ detectors, maxRetries: 0 });
    const outcome = await loop.run({ input: 'x', generate: answers(claim), readState });
    expect(outcome.ok ? undefined : outcome.code).toBe('max_retries');
  });
});

describe('retry_with_debug', () => {
  it('off: the first conflict ends the run with a retry_disabled report, without a retry', async () => {
    const generate = answers(claim, settled);
    const loop = createConflictLoop({ detectors, retryWithDebug: false, clock: createManualClock() });
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('retry_disabled');
    expect(outcome.report.reason).toBe('retry_disabled');
    expect(outcome.report.summary).toContain('retry_with_debug is off');
    expect(outcome.report.conflict_debug[0]?.detector).toBe('hp_claim');
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]?.escalated).toBe(true);
    expect(generate.requests).toHaveLength(1);
  });

  it('off: a refused tool call is still retried with tool_feedback', async () => {
    const gate = createFakeToolGate((call) =>
      call.id === 'c1' ? { status: 'rejected', reason: 'not allowed here' } : 'execute',
    );
    const generate = answers(settled, { text: 'You lose 5 HP.', tool_calls: [hpCall('c2', -5)] });
    const loop = createConflictLoop({ detectors, gate, retryWithDebug: false });
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(true);
    expect(outcome.retries).toBe(1);
    expect(generate.requests[1]?.feedback[0]?.tool_feedback?.failed_calls[0]?.id).toBe('c1');
  });
});

describe('policy: K and the switches read at the moment of deciding', () => {
  it('reads K for every attempt, so a change mid-run counts from the next decision', async () => {
    let policy: ConflictPolicy = { maxRetries: 5 };
    const reads: number[] = [];
    const generate = answers(claim, claim, claim, claim);
    const loop = createConflictLoop({
      detectors,
      maxRetries: 9,
      policy: () => {
        reads.push(generate.requests.length);
        return policy;
      },
    });
    const run = loop.run({
      input: 'x',
      generate: async (request, context) => {
        if (request.feedback.length === 1) policy = { maxRetries: 1 }; // lowered while the run is going
        return generate(request, context);
      },
      readState,
    });
    const outcome = await run;
    expect(outcome.ok ? undefined : outcome.code).toBe('max_retries');
    expect(outcome.retries).toBe(1);
    expect(outcome.ok ? undefined : outcome.report.max_retries).toBe(1);
    expect(reads).toEqual([1, 2]);
  });

  it('takes a field it leaves out from the fixed options, and may be async', async () => {
    const loop = createConflictLoop({
      detectors,
      maxRetries: 0,
      policy: async () => ({ retryWithDebug: false }),
    });
    const outcome = await loop.run({ input: 'x', generate: answers(claim), readState });
    expect(outcome.ok ? undefined : outcome.code).toBe('retry_disabled');
  });

  it('turns interception off per attempt', async () => {
    const loop = createConflictLoop({ detectors, policy: () => ({ interceptOutput: false }) });
    const outcome = await loop.run({ input: 'x', generate: answers(claim), readState });
    expect(outcome.ok).toBe(true);
  });

  it('rejects the run with invalid_argument for a malformed policy', async () => {
    const cases: unknown[] = [
      null,
      'x',
      { maxRetries: -1 },
      { interceptOutput: 'yes' },
      { retryWithDebug: 1 },
    ];
    for (const answer of cases) {
      const loop = createConflictLoop({ detectors, policy: () => answer as ConflictPolicy });
      const error = await rejection(loop.run({ input: 'x', generate: answers(claim), readState }));
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
  });

  it('passes the reader’s own error through unchanged', async () => {
    const boom = new Error('settings store down');
    const loop = createConflictLoop({
      detectors,
      policy: () => {
        throw boom;
      },
    });
    expect(await rejection(loop.run({ input: 'x', generate: answers(claim), readState }))).toBe(boom);
  });

  it('refuses a policy or switch of the wrong type at construction', () => {
    for (const options of [{ policy: 'often' }, { interceptOutput: 'no' }, { retryWithDebug: 0 }] as const) {
      expect(() => createConflictLoop(options as never)).toThrow(/must be/);
    }
  });
});

describe('every state-changing tool has a conflict check', () => {
  it('createConflictLoop throws unchecked_tool for a tool no detector checks', () => {
    let caught: unknown;
    try {
      createConflictLoop({ detectors, stateTools: ['hp_delta', 'move', 'teleport', 'heal'] });
    } catch (error) {
      caught = error;
    }
    expect(isParleyError(caught, 'unchecked_tool')).toBe(true);
    expect(isParleyError(caught) ? caught.details : undefined).toEqual({ tools: ['teleport', 'heal'] });
  });

  it('accepts a tool set whose every tool is checked, by a built-in or a host detector', () => {
    const teleport = defineDetector({ name: 'teleport_claim', tools: ['teleport'], detect: () => undefined });
    expect(() =>
      createConflictLoop({
        detectors: [...detectors, teleport],
        stateTools: ['hp_delta', 'move', 'teleport'],
      }),
    ).not.toThrow();
  });

  it('checkToolCoverage answers as data and names the gap once', () => {
    expect(checkToolCoverage(['hp_delta', 'move'], detectors)).toEqual({ ok: true });
    expect(checkToolCoverage(['teleport', 'teleport'], detectors)).toEqual({
      ok: false,
      code: 'unchecked_tool',
      tools: ['teleport'],
    });
    expect(defineDetector({ name: 'hp', tools: ['hp'], detect: () => undefined }).tools).toEqual(['hp']);
  });

  it('refuses malformed input with invalid_argument', () => {
    for (const run of [
      () => checkToolCoverage('hp_delta' as never, detectors),
      () => checkToolCoverage([''], detectors),
      () => checkToolCoverage(['hp_delta'], [{ name: 'x' } as never]),
      () => checkToolCoverage(['hp_delta'], 'x' as never),
      () => defineDetector({ name: 'x', tools: [''], detect: () => undefined }),
      () => defineDetector({ name: 'x', tools: 'hp' as never, detect: () => undefined }),
    ]) {
      let caught: unknown;
      try {
        run();
      } catch (error) {
        caught = error;
      }
      expect(isParleyError(caught, 'invalid_argument')).toBe(true);
    }
  });
});
