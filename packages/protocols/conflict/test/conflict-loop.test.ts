import { createManualClock } from '@parley/core';
import { createFakeToolGate } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import {
  type AttemptRecord,
  type ConflictLoopEvents,
  createConflictLoop,
  type Proposal,
} from '../src/index.js';
import { answers, hpCall, moveCall, scripted, hpClaims, moveClaims } from './helpers.js';

const state = { hp: 20, at: 'market' };
const readState = () => state;
const detectors = [hpClaims(), moveClaims()];

describe('createConflictLoop — clean output', () => {
  it('returns a clean first answer with its executed calls and one passed record', async () => {
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors, gate, clock: createManualClock() });
    const generate = answers<Proposal>({ text: 'You lose 5 HP.', tool_calls: [hpCall('c1', -5)] });

    const outcome = await loop.run({ input: 'shoot', generate, readState });

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.output.text).toBe('You lose 5 HP.');
    expect(outcome.appliedActions).toEqual([
      { id: 'c1', tool: 'hp_delta', args: hpCall('c1', -5).args, result: 'ok' },
    ]);
    expect(outcome.retries).toBe(0);
    expect(outcome.attempts.map((record) => record.status)).toEqual(['passed']);
    expect(generate.requests).toEqual([{ input: 'shoot', feedback: [] }]);
    expect(gate.runs.get('c1')).toBe(1);
  });

  it('does not call the gate when the output proposes no calls', async () => {
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors, gate });
    const outcome = await loop.run({
      input: 'look',
      generate: answers({ text: 'The market is busy.' }),
      readState,
    });
    expect(outcome.ok).toBe(true);
    expect(gate.batches).toEqual([]);
  });

  it('returns tool calls untouched and executes nothing when no gate is given', async () => {
    const loop = createConflictLoop({ detectors });
    const proposal = { text: 'You lose 5 HP.', tool_calls: [hpCall('c1', -5)] };
    const outcome = await loop.run({ input: 'x', generate: answers(proposal), readState });
    expect(outcome.ok && outcome.output).toEqual(proposal);
    expect(outcome.appliedActions).toEqual([]);
  });
});

describe('createConflictLoop — contradictions', () => {
  it('retries a contradiction with the conflict_debug appended to the previous request, then passes', async () => {
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors, gate });
    const generate = answers<Proposal>(
      { text: '你受到5点伤害。' },
      { text: '你受到5点伤害。', tool_calls: [hpCall('c1', -5)] },
    );

    const outcome = await loop.run({ input: { prompt: 'goblin attacks' }, generate, readState });

    expect(outcome.ok).toBe(true);
    expect(outcome.retries).toBe(1);
    const [first, second] = generate.requests;
    expect(second?.input).toBe(first?.input); // the same request, not a fresh prompt
    expect(first?.feedback).toEqual([]);
    expect(second?.feedback).toHaveLength(1);
    const feedback = second!.feedback[0]!;
    expect(feedback.attempt).toBe(1);
    expect(feedback.rejected_output).toEqual({ text: '你受到5点伤害。' });
    expect(feedback.conflict_debug).toEqual([
      expect.objectContaining({
        detector: 'hp_claim',
        evidence: '受到5点伤害',
        mismatch_reason: expect.stringContaining('delta -5'),
        instructions: expect.stringContaining('hp_delta'),
        expected_state_snippet: { changes_only_via: 'hp_delta' },
      }),
    ]);
    expect(outcome.attempts.map((record) => record.status)).toEqual(['conflict', 'passed']);
  });

  it('never executes the tool calls of an attempt a detector rejected', async () => {
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors, gate, maxRetries: 1 });
    const generate = answers<Proposal>(
      { text: 'You move to the tavern and lose 5 HP.', tool_calls: [hpCall('c1', -5)] },
      { text: 'You lose 5 HP.', tool_calls: [hpCall('c2', -5)] },
    );

    const outcome = await loop.run({ input: 'x', generate, readState });

    expect(outcome.ok).toBe(true);
    expect(gate.batches.map((batch) => batch.map((call) => call.id))).toEqual([['c2']]);
    expect(gate.runs.has('c1')).toBe(false);
    expect(outcome.attempts[0]?.executed).toEqual([]);
  });

  it('ends in a conflict report after exactly K retries of a persistent contradiction', async () => {
    const gate = createFakeToolGate();
    const clock = createManualClock({ now: 1_000 });
    const loop = createConflictLoop({ detectors, gate, maxRetries: 2, clock });
    const generate = scripted<Proposal>(
      Array.from({ length: 3 }, () => ({ reply: { text: 'You walk into the tavern.' } })),
    );

    const outcome = await loop.run({ input: 'x', generate, readState });

    expect(generate.requests).toHaveLength(3); // 1 + K
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('max_retries');
    expect(outcome.retries).toBe(2);
    expect(generate.requests[2]?.feedback.map((entry) => entry.attempt)).toEqual([1, 2]);
    const { report } = outcome;
    expect(report).toMatchObject({
      reason: 'max_retries',
      attempts: 3,
      retries: 2,
      max_retries: 2,
      last_output: { text: 'You walk into the tavern.' },
      applied_actions: [],
      created_at: 1_000,
    });
    expect(report.conflict_debug[0]).toMatchObject({
      detector: 'move_claim',
      evidence: 'walk into the tavern',
    });
    expect(report.history.map((entry) => entry.status)).toEqual(['conflict', 'conflict', 'conflict']);
    expect(report.summary).toContain('2 of 2 retries');
    expect(gate.batches).toEqual([]);
  });

  it('reports after the first attempt when K is 0', async () => {
    const loop = createConflictLoop({ detectors, maxRetries: 0 });
    const generate = answers<Proposal>({ text: 'HP -3' });
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok || outcome.code).toBe('max_retries');
    expect(generate.requests).toHaveLength(1);
  });

  it('uses K = 2 by default', async () => {
    const loop = createConflictLoop({ detectors });
    const generate = answers<Proposal>({ text: 'HP -3' }, { text: 'HP -3' }, { text: 'HP -3' });
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(false);
    expect(generate.requests).toHaveLength(3);
  });

  it('treats a malformed output as a proposal_shape conflict and never sends its calls to the gate', async () => {
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors, gate, maxRetries: 1 });
    const malformed = {
      text: 'ok',
      tool_calls: [
        hpCall('c1', -1),
        hpCall('c1', -1),
        { id: 'c3', tool: 'move' },
        'x',
        { tool: 'move', args: {} },
      ],
      structured: 'no',
    };
    const generate = scripted<Proposal>([
      { respond: () => malformed as unknown as Proposal },
      { reply: { text: 'ok' } },
    ]);

    const outcome = await loop.run({ input: 'x', generate, readState });

    expect(outcome.ok).toBe(true);
    const conflict = outcome.attempts[0]!.conflicts[0]!;
    expect(conflict.detector).toBe('proposal_shape');
    expect(conflict.mismatch_reason).toContain('tool_calls[1] repeats the id "c1"');
    expect(conflict.mismatch_reason).toContain('tool_calls[2] has no "args" object');
    expect(conflict.mismatch_reason).toContain('tool_calls[3] is not an object');
    expect(conflict.mismatch_reason).toContain('tool_calls[4] has no "id"');
    expect(conflict.mismatch_reason).toContain('"structured" is not an object');
    expect(outcome.attempts[0]?.output).toBe(malformed);
    expect(gate.batches).toEqual([]);
  });

  it.each([
    ['not an object', 'the output is not an object', 'text'],
    ['text missing', '"text" is not a string', { tool_calls: [] }],
    ['calls not a list', '"tool_calls" is not a list', { text: '', tool_calls: {} }],
    ['call without tool', 'has no "tool"', { text: '', tool_calls: [{ id: 'a', args: {} }] }],
    [
      'reason not text',
      'has a "reason" that is not text',
      { text: '', tool_calls: [{ id: 'a', tool: 't', args: {}, reason: 1 }] },
    ],
  ])('refuses an output whose %s', async (_label, problem, output) => {
    const loop = createConflictLoop({ maxRetries: 0 });
    const outcome = await loop.run({
      input: 'x',
      generate: answers(output as unknown as Proposal),
      readState,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts[0]?.conflicts[0]?.mismatch_reason).toContain(problem);
  });

  it('reads the state fresh for every attempt', async () => {
    let reads = 0;
    const loop = createConflictLoop({ detectors, maxRetries: 1 });
    await loop.run({
      input: 'x',
      generate: answers<Proposal>({ text: 'HP -1' }, { text: 'fine' }),
      readState: async () => {
        reads++;
        return state;
      },
    });
    expect(reads).toBe(2);
  });
});

describe('createConflictLoop — tool feedback', () => {
  it('appends the tool_feedback of a rejected call to the previous request and retries', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'move'
        ? {
            status: 'rejected',
            reason: 'area_locked: the movement lock is not released',
            disabled_until: 'door unlocked',
          }
        : 'execute',
    );
    const loop = createConflictLoop({ detectors, gate });
    const generate = answers<Proposal>(
      { text: 'You head to the vault.', tool_calls: [moveCall('m1', 'vault')] },
      { text: 'The vault door is locked.' },
    );

    const outcome = await loop.run({ input: 'x', generate, readState });

    expect(outcome.ok).toBe(true);
    expect(generate.requests[1]?.feedback[0]).toMatchObject({
      attempt: 1,
      conflict_debug: [],
      tool_feedback: {
        failed_calls: [
          {
            id: 'm1',
            tool: 'move',
            status: 'rejected',
            reason: 'area_locked: the movement lock is not released',
            disabled_until: 'door unlocked',
          },
        ],
      },
    });
    expect(outcome.attempts.map((record) => record.status)).toEqual(['tool_rejected', 'passed']);
    expect(outcome.appliedActions).toEqual([]);
  });

  it('runs a side effect at most once per call id across retries', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'move' ? { status: 'error', reason: 'map service down' } : 'execute',
    );
    const loop = createConflictLoop({ detectors, gate });
    const generate = answers<Proposal>(
      {
        text: 'You lose 5 HP and head to the vault.',
        tool_calls: [hpCall('c1', -5), moveCall('m1', 'vault')],
      },
      { text: 'You lose 5 HP.', tool_calls: [hpCall('c1', -5)] },
    );

    const outcome = await loop.run({ input: 'x', generate, readState });

    expect(outcome.ok).toBe(true);
    expect(gate.runs.get('c1')).toBe(1);
    expect(gate.batches.map((batch) => batch.map((call) => call.id))).toEqual([['c1', 'm1']]);
    expect(outcome.attempts[1]?.skippedCallIds).toEqual(['c1']);
    expect(outcome.appliedActions.map((action) => action.id)).toEqual(['c1']);
  });

  it('lets an hp_delta executed in an earlier attempt settle the claim of a retry', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'move' ? { status: 'rejected', reason: 'locked' } : 'execute',
    );
    const loop = createConflictLoop({ detectors, gate, maxRetries: 1 });
    const generate = answers<Proposal>(
      {
        text: 'You lose 5 HP and head to the vault.',
        tool_calls: [hpCall('c1', -5), moveCall('m1', 'vault')],
      },
      { text: 'You lose 5 HP; the vault stays shut.' },
    );
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(true);
    expect(gate.runs.get('c1')).toBe(1);
  });

  it('reports deferred calls, never re-sends them, and does not retry for them', async () => {
    const gate = createFakeToolGate((call) => (call.tool === 'delete_save' ? 'defer' : 'execute'));
    const loop = createConflictLoop({ gate, maxRetries: 1 });
    const call = { id: 'd1', tool: 'delete_save', args: {} };
    const outcome = await loop.run({
      input: 'x',
      generate: answers<Proposal>({ text: 'Deleting.', tool_calls: [call] }),
      readState,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.deferredCalls).toEqual([
      { id: 'd1', tool: 'delete_save', reason: 'awaiting confirmation' },
    ]);
    expect(outcome.appliedActions).toEqual([]);
  });

  it('keeps a deferred call without a reason as it is', async () => {
    const gate = (calls: readonly { id: string; tool: string }[]) => ({
      executed: [],
      deferred: calls.map((call) => ({ id: call.id, tool: call.tool })),
    });
    const outcome = await createConflictLoop({ gate }).run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a', tool_calls: [{ id: 'd1', tool: 'wipe', args: {} }] }),
      readState,
    });
    expect(outcome.deferredCalls).toEqual([{ id: 'd1', tool: 'wipe' }]);
  });

  it('does not send a deferred call id to the gate again in a later attempt', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'delete_save' ? 'defer' : { status: 'rejected', reason: 'no' },
    );
    const loop = createConflictLoop({ gate, maxRetries: 1 });
    const held = { id: 'd1', tool: 'delete_save', args: {} };
    const outcome = await loop.run({
      input: 'x',
      generate: answers<Proposal>(
        { text: 'a', tool_calls: [held, { id: 'x1', tool: 'teleport', args: {} }] },
        { text: 'b', tool_calls: [held] },
      ),
      readState,
    });
    expect(outcome.ok).toBe(true);
    expect(gate.batches).toHaveLength(1);
    expect(outcome.attempts[1]?.skippedCallIds).toEqual(['d1']);
  });

  it('ends in a report carrying the last tool_feedback when calls keep being refused', async () => {
    const gate = createFakeToolGate(() => ({ status: 'rejected', reason: 'tool not enabled' }));
    const loop = createConflictLoop({ gate, maxRetries: 1 });
    let n = 0;
    const generate = scripted<Proposal>([
      { respond: () => ({ text: 'a', tool_calls: [{ id: `t${++n}`, tool: 'teleport', args: {} }] }) },
      { respond: () => ({ text: 'a', tool_calls: [{ id: `t${++n}`, tool: 'teleport', args: {} }] }) },
    ]);
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.report.tool_feedback?.failed_calls.map((call) => call.id)).toEqual(['t2']);
    expect(outcome.report.history.map((entry) => entry.status)).toEqual(['tool_rejected', 'tool_rejected']);
  });
});

describe('createConflictLoop — records and events', () => {
  it('records every attempt with inputs, outputs, conflicts and times from the injected clock', async () => {
    const clock = createManualClock({ now: 5_000 });
    const loop = createConflictLoop({ detectors, clock });
    const generate = scripted<Proposal>([
      {
        respond: () => {
          clock.advance(120);
          return { text: 'HP -2' };
        },
      },
      {
        respond: () => {
          clock.advance(80);
          return { text: 'Nothing happens.' };
        },
      },
    ]);
    const seen: ConflictLoopEvents['attempt'][] = [];
    const settled: ConflictLoopEvents['settled'][] = [];
    loop.on('attempt', (payload) => seen.push(payload));
    loop.on('settled', (payload) => settled.push(payload));

    const outcome = await loop.run({ input: 'x', generate, readState });

    const times = outcome.attempts.map((r: AttemptRecord<unknown>) => [r.startedAt, r.endedAt, r.durationMs]);
    expect(times).toEqual([
      [5_000, 5_120, 120],
      [5_120, 5_200, 80],
    ]);
    expect(outcome.attempts[0]).toMatchObject({ attempt: 1, status: 'conflict', output: { text: 'HP -2' } });
    expect(outcome.attempts[0]?.request).toBe(generate.requests[0]);
    expect(seen.map((payload) => payload.record)).toEqual(outcome.attempts);
    expect(settled).toEqual([{ ok: true, code: undefined, attempts: 2 }]);
  });

  it('stops emitting to a listener after it unsubscribes', async () => {
    const loop = createConflictLoop();
    let calls = 0;
    const off = loop.on('attempt', () => calls++);
    off();
    await loop.run({ input: 'x', generate: answers({ text: 'a' }), readState });
    expect(calls).toBe(0);
  });

  it('passes the attempt number and the signal to the generator', async () => {
    const controller = new AbortController();
    const loop = createConflictLoop({ detectors });
    const generate = answers<Proposal>({ text: 'HP -1' }, { text: 'ok' });
    await loop.run({ input: 'x', generate, readState, signal: controller.signal });
    expect(generate.contexts).toEqual([
      { attempt: 1, signal: controller.signal },
      { attempt: 2, signal: controller.signal },
    ]);
  });
});
