import { isParleyError } from '@parley/core';
import { createFakeToolGate } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import {
  type AttemptRecord,
  createConflictLoop,
  defineDetector,
  type Proposal,
  type ToolGateLike,
} from '../src/index.js';
import { answers, hpCall, scripted, rejection, hpClaims } from './helpers.js';

const readState = () => ({});

describe('cancellation', () => {
  it('rejects with cancelled and calls nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const generate = answers<Proposal>({ text: 'a' });
    const error = await rejection(
      createConflictLoop().run({ input: 'x', generate, readState, signal: controller.signal }),
    );
    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect((error as Error).cause).toEqual(new Error('user left'));
    expect(generate.requests).toEqual([]);
  });

  it('rejects a hung generator with cancelled when the signal aborts mid-loop, recording the attempt', async () => {
    const controller = new AbortController();
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ detectors: [hpClaims()], gate });
    const records: AttemptRecord<unknown>[] = [];
    loop.on('attempt', ({ record }) => {
      records.push(record);
      if (record.attempt === 1) queueMicrotask(() => controller.abort('stop'));
    });
    const generate = scripted<Proposal>([{ reply: { text: 'HP -4', tool_calls: [] } }, { hang: true }]);

    const error = await rejection(loop.run({ input: 'x', generate, readState, signal: controller.signal }));

    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect(records.map((record) => record.status)).toEqual(['conflict', 'cancelled']);
    expect(records[1]?.error).toEqual({ name: 'Error', message: 'stop' });
    expect((error as { details: { attempts: unknown[] } }).details.attempts).toHaveLength(2);
    expect(gate.batches).toEqual([]);
  });

  it('never executes the calls of an output that arrives after the abort', async () => {
    const controller = new AbortController();
    const gate = createFakeToolGate();
    const loop = createConflictLoop({ gate });
    const generate = scripted<Proposal>([
      {
        respond: () => {
          controller.abort();
          return { text: 'You lose 5 HP.', tool_calls: [hpCall('c1', -5)] };
        },
      },
    ]);
    const error = await rejection(loop.run({ input: 'x', generate, readState, signal: controller.signal }));
    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect(gate.batches).toEqual([]);
  });

  it('cancels when the signal reads aborted once the output is in, without an abort event', async () => {
    const signal = { aborted: false, reason: 'quiet', addEventListener() {}, removeEventListener() {} };
    const gate = createFakeToolGate();
    const generate = scripted<Proposal>([
      {
        respond: () => {
          signal.aborted = true;
          return { text: 'a', tool_calls: [hpCall('c1', -1)] };
        },
      },
    ]);
    const loop = createConflictLoop({ gate });
    const records: AttemptRecord<unknown>[] = [];
    loop.on('attempt', ({ record }) => records.push(record));
    const error = await rejection(
      loop.run({ input: 'x', generate, readState, signal: signal as unknown as AbortSignal }),
    );
    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect(records[0]).toMatchObject({ status: 'cancelled', output: { text: 'a' } });
    expect(gate.batches).toEqual([]);
  });

  it('stops before the next attempt when the signal aborts during detection', async () => {
    const controller = new AbortController();
    const aborting = defineDetector({
      name: 'aborting',
      detect: () => {
        controller.abort();
        return { expected_state_snippet: null, mismatch_reason: 'bad', instructions: 'fix' };
      },
    });
    const generate = answers<Proposal>({ text: 'a' }, { text: 'b' });
    const error = await rejection(
      createConflictLoop({ detectors: [aborting] }).run({
        input: 'x',
        generate,
        readState,
        signal: controller.signal,
      }),
    );
    expect(isParleyError(error, 'cancelled')).toBe(true);
    expect(generate.requests).toHaveLength(1);
  });

  it('removes every abort listener it adds once the generator and the state read answer', async () => {
    const controller = new AbortController();
    const added: string[] = [];
    const removed: string[] = [];
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, ...rest: [EventListener, AddEventListenerOptions]) => {
      added.push(type);
      add(type, ...rest);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, ...rest: [EventListener]) => {
      removed.push(type);
      remove(type, ...rest);
    }) as typeof signal.removeEventListener;
    await createConflictLoop().run({ input: 'x', generate: answers({ text: 'a' }), readState, signal });
    expect(added).toEqual(['abort', 'abort']);
    expect(removed).toEqual(added);
  });
});

describe('a generator that throws', () => {
  it('is retried when it rejects while a signal is given but not aborted', async () => {
    const controller = new AbortController();
    const generate = scripted<Proposal>([{ fail: new Error('flaky') }, { reply: { text: 'ok' } }]);
    const outcome = await createConflictLoop().run({
      input: 'x',
      generate,
      readState,
      signal: controller.signal,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.attempts.map((record) => record.status)).toEqual(['generator_error', 'passed']);
  });

  it('is retried once with the same request, not counted as a conflict retry', async () => {
    const generate = scripted<Proposal>([
      { fail: new Error('502 from the model API') },
      { reply: { text: 'ok' } },
    ]);
    const outcome = await createConflictLoop().run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(true);
    expect(outcome.retries).toBe(0);
    expect(generate.requests[1]).toEqual(generate.requests[0]);
    expect(outcome.attempts[0]).toMatchObject({
      status: 'generator_error',
      error: { name: 'Error', message: '502 from the model API' },
    });
  });

  it('ends in a generator_failed report when it throws again after its retry', async () => {
    const generate = scripted<Proposal>([{ fail: new Error('502') }, { fail: 'timeout' }]);
    const outcome = await createConflictLoop().run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('generator_failed');
    expect(outcome.report.error).toBe('timeout');
    expect(outcome.report.summary).toContain('timeout');
    expect(outcome.report).not.toHaveProperty('last_output');
    expect(generate.requests).toHaveLength(2);
  });

  it('reports at once when maxErrorRetries is 0, and a synchronous throw counts the same', async () => {
    const generate = () => {
      throw new Error('sync');
    };
    const outcome = await createConflictLoop({ maxErrorRetries: 0 }).run({ input: 'x', generate, readState });
    expect(outcome.ok || outcome.code).toBe('generator_failed');
    expect(outcome.attempts).toHaveLength(1);
  });

  it('keeps the last output in the report when a later attempt throws', async () => {
    const loop = createConflictLoop({ detectors: [hpClaims()], maxErrorRetries: 0 });
    const generate = scripted<Proposal>([{ reply: { text: 'HP -1' } }, { fail: new Error('down') }]);
    const outcome = await loop.run({ input: 'x', generate, readState });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.report.last_output).toEqual({ text: 'HP -1' });
    expect(outcome.report.history.map((entry) => entry.status)).toEqual(['conflict', 'generator_error']);
  });
});

describe('host components that break their contract', () => {
  it('rejects with detector_failed when a detector throws, after recording the attempt', async () => {
    const broken = defineDetector({
      name: 'broken',
      detect: () => {
        throw new TypeError('oops');
      },
    });
    const gate = createFakeToolGate();
    const records: AttemptRecord<unknown>[] = [];
    const loop = createConflictLoop({ detectors: [broken], gate });
    loop.on('attempt', ({ record }) => records.push(record));
    const error = await rejection(
      loop.run({
        input: 'x',
        generate: answers<Proposal>({ text: 'a', tool_calls: [hpCall('c1', -1)] }),
        readState,
      }),
    );
    expect(isParleyError(error, 'detector_failed')).toBe(true);
    expect((error as { details: Record<string, unknown> }).details['detector']).toBe('broken');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(records.map((record) => record.status)).toEqual(['failed']);
    expect(gate.batches).toEqual([]);
  });

  it('rejects with detector_failed when a detector returns a conflict without instructions', async () => {
    const sloppy = defineDetector({
      name: 'sloppy',
      detect: () => [{ expected_state_snippet: 1, mismatch_reason: 'x', instructions: '' }],
    });
    const error = await rejection(
      createConflictLoop({ detectors: [sloppy] }).run({
        input: 'x',
        generate: answers({ text: 'a' }),
        readState,
      }),
    );
    expect(isParleyError(error, 'detector_failed')).toBe(true);
    expect((error as { details: Record<string, unknown> }).details).toMatchObject({
      detector: 'sloppy',
      index: 0,
    });
  });

  it('rejects with gate_failed and does not retry when the gate throws', async () => {
    const gate: ToolGateLike = async () => {
      throw new Error('db down');
    };
    const generate = answers<Proposal>({ text: 'a', tool_calls: [hpCall('c1', -1)] });
    const error = await rejection(createConflictLoop({ gate }).run({ input: 'x', generate, readState }));
    expect(isParleyError(error, 'gate_failed')).toBe(true);
    expect((error as { details: Record<string, unknown> }).details['callIds']).toEqual(['c1']);
    expect(generate.requests).toHaveLength(1);
  });

  it.each([
    ['returns no object', () => null, 'did not return an object'],
    ['returns executed that is not a list', () => ({ executed: 'c1' }), '"executed" is not a list'],
    ['returns a non-object entry', () => ({ executed: [1] }), 'not an object'],
    [
      'returns feedback that is not an object',
      () => ({ executed: [], feedback: 'no' }),
      '"feedback" is not an object',
    ],
    ['answers without an id', () => ({ executed: [{ tool: 'hp_delta' }] }), 'answers "undefined"'],
    [
      'answers an id it was not given',
      () => ({ executed: [{ id: 'zz', tool: 'hp_delta' }] }),
      'answers "zz"',
    ],
    ['answers a call twice', () => ({ executed: [{ id: 'c1' }], deferred: [{ id: 'c1' }] }), 'answers "c1"'],
    ['leaves a call unanswered', () => ({ executed: [] }), 'did not answer "c1"'],
    [
      'uses an unknown status',
      () => ({
        executed: [],
        feedback: { failed_calls: [{ id: 'c1', tool: 'hp_delta', status: 'denied', reason: 'x' }] },
      }),
      'has status denied',
    ],
    [
      'gives no reason',
      () => ({ executed: [], feedback: { failed_calls: [{ id: 'c1', tool: 'hp_delta', status: 'error' }] } }),
      'has no reason',
    ],
  ])('rejects with gate_failed when the gate %s', async (_label, answer, problem) => {
    const gate = (async () => answer()) as unknown as ToolGateLike;
    const generate = answers<Proposal>({ text: 'a', tool_calls: [hpCall('c1', -1)] });
    const error = await rejection(createConflictLoop({ gate }).run({ input: 'x', generate, readState }));
    expect(isParleyError(error, 'gate_failed')).toBe(true);
    expect((error as Error).message).toContain(problem);
  });

  it('takes the gate args and result as given, falling back to the call args', async () => {
    const gate: ToolGateLike = (calls) => ({
      executed: [
        { id: calls[0]!.id, tool: 'ignored', args: { delta: -9 } },
        { id: calls[1]!.id, tool: 'ignored' },
      ],
    });
    const outcome = await createConflictLoop({ gate }).run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a', tool_calls: [hpCall('c1', -1), hpCall('c2', -2)] }),
      readState,
    });
    expect(outcome.appliedActions).toEqual([
      { id: 'c1', tool: 'hp_delta', args: { delta: -9 } },
      { id: 'c2', tool: 'hp_delta', args: hpCall('c2', -2).args },
    ]);
  });

  it('passes an error thrown by readState through unchanged', async () => {
    const boom = new Error('store offline');
    const error = await rejection(
      createConflictLoop().run({
        input: 'x',
        generate: answers({ text: 'a' }),
        readState: () => {
          throw boom;
        },
      }),
    );
    expect(error).toBe(boom);
  });
});

describe('invalid options', () => {
  it.each([
    ['a negative maxRetries', { maxRetries: -1 }],
    ['a fractional maxRetries', { maxRetries: 1.5 }],
    ['a huge maxErrorRetries', { maxErrorRetries: 101 }],
    ['a maxRetries that is not a number', { maxRetries: '2' }],
    ['a maxRetries of NaN', { maxRetries: Number.NaN }],
    ['an infinite maxRetries', { maxRetries: Number.POSITIVE_INFINITY }],
    ['a maxRetries over 100', { maxRetries: 101 }],
    ['a maxCallsPerAttempt over 1000', { maxCallsPerAttempt: 1_001 }],
    ['detectors that are not a list', { detectors: 'hp' }],
    ['a detector not made by defineDetector', { detectors: [{ name: 'x' }] }],
    ['two detectors with one name', { detectors: [hpClaims(), hpClaims()] }],
    ['a gate that is not a function', { gate: {} }],
  ])('throws invalid_argument for %s', (_label, options) => {
    expect(() => createConflictLoop(options as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('rejects with invalid_argument when generate or readState is missing', async () => {
    const loop = createConflictLoop();
    const noGenerate = await rejection(loop.run({ input: 'x', readState } as never));
    const noState = await rejection(loop.run({ input: 'x', generate: answers({ text: 'a' }) } as never));
    expect(isParleyError(noGenerate, 'invalid_argument')).toBe(true);
    expect(isParleyError(noState, 'invalid_argument')).toBe(true);
  });
});

describe('host callbacks and bounds', () => {
  it('[EFFECT-07] rejects with cancelled when the signal aborts while a detector hangs', async () => {
    const controller = new AbortController();
    const gate = createFakeToolGate();
    const hang = defineDetector({ name: 'hang', detect: () => new Promise<undefined>(() => undefined) });
    const loop = createConflictLoop({ detectors: [hang], gate });
    const running = loop.run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a', tool_calls: [hpCall('c1', -1)] }),
      readState,
      signal: controller.signal,
    });
    queueMicrotask(() => controller.abort(new Error('player left')));
    const error = await rejection(running);
    expect(isParleyError(error, 'cancelled')).toBe(true);
    const attempts = (error as { details: { attempts: AttemptRecord<unknown>[] } }).details.attempts;
    expect(attempts.map((record) => record.status)).toEqual(['cancelled']);
    expect(gate.batches).toEqual([]);
  });

  it('[EFFECT-07] rejects with cancelled when the signal aborts while readState hangs', async () => {
    const controller = new AbortController();
    const running = createConflictLoop().run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a' }),
      readState: () => new Promise<never>(() => undefined),
      signal: controller.signal,
    });
    queueMicrotask(() => controller.abort());
    expect(isParleyError(await rejection(running), 'cancelled')).toBe(true);
  });

  it('[EFFECT-07] refuses an output with more calls than maxCallsPerAttempt, running none of them', async () => {
    const gate = createFakeToolGate();
    const many = Array.from({ length: 4 }, (_, i) => hpCall(`c${i}`, -1));
    const outcome = await createConflictLoop({ gate, maxCallsPerAttempt: 3, maxRetries: 0 }).run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a', tool_calls: many }),
      readState,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts[0]?.conflicts[0]?.mismatch_reason).toContain('more than the 3 allowed');
    expect(gate.batches).toEqual([]);
  });

  it('[EFFECT-07] keeps at most 20 conflicts of one attempt, counting the rest in a last entry', async () => {
    const noisy = defineDetector({
      name: 'noisy',
      detect: () =>
        Array.from({ length: 500 }, (_, i) => ({
          expected_state_snippet: null,
          mismatch_reason: `problem ${i} ${'!'.repeat(5_000)}`,
          instructions: 'fix it',
        })),
    });
    const outcome = await createConflictLoop({ detectors: [noisy], maxRetries: 0 }).run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a' }),
      readState,
    });
    const conflicts = outcome.attempts[0]!.conflicts;
    expect(conflicts).toHaveLength(20);
    expect(conflicts[19]).toMatchObject({
      detector: 'conflict_limit',
      mismatch_reason: expect.stringContaining('481 more'),
    });
    expect(Math.max(...conflicts.map((conflict) => conflict.mismatch_reason.length))).toBeLessThanOrEqual(
      1_000,
    );
  });

  it('[EFFECT-07] names at most 10 problems of a malformed output and refuses args that are not JSON', async () => {
    const calls = [
      ...Array.from({ length: 12 }, () => 'x'),
      { id: 'nan', tool: 'hp_delta', args: { delta: Number.NaN } },
    ];
    const outcome = await createConflictLoop({ maxRetries: 0 }).run({
      input: 'x',
      generate: answers({ text: 'a', tool_calls: calls } as unknown as Proposal),
      readState,
    });
    const reason = outcome.attempts[0]!.conflicts[0]!.mismatch_reason;
    expect(reason).toContain('and 3 more');
    const nan = await createConflictLoop({ maxRetries: 0 }).run({
      input: 'x',
      generate: answers({ text: 'a', tool_calls: [calls[12]] } as unknown as Proposal),
      readState,
    });
    expect(nan.attempts[0]!.conflicts[0]!.mismatch_reason).toContain('not plain JSON');
  });
});
