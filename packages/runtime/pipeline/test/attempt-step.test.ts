import { createTopology, EnvelopeError } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import { type AttemptState, attemptSpawn, attemptStep, spawnVerdict } from '../src/index.js';

// An attempt's timeout and its spawn, alone: the rules both the Store runner and @parley/restate run.
const started = attemptStep(undefined, { type: 'start', timeoutMs: 1_000 }, 100).value as AttemptState;

describe('attemptStep', () => {
  it('starts an attempt with its deadline and asks for a timer at it', () => {
    const step = attemptStep(undefined, { type: 'start', timeoutMs: 1_000 }, 100);
    expect(step.value).toEqual({ startedAt: 100, deadlineAt: 1_100, timeoutMs: 1_000 });
    expect(step.effects).toEqual([{ type: 'wait', deadlineAt: 1_100 }]);
  });

  it('changes nothing for a second start, or for an event before any start', () => {
    expect(attemptStep(started, { type: 'start', timeoutMs: 5 }, 200)).toEqual({
      value: started,
      effects: [],
    });
    expect(attemptStep(undefined, { type: 'timer' }, 200)).toEqual({ value: undefined, effects: [] });
  });

  it('settles with the result before the deadline, without aborting the work', () => {
    const step = attemptStep(started, { type: 'result', value: { ok: 1 } }, 1_099);
    expect(step.effects).toEqual([{ type: 'settled', outcome: { kind: 'value', value: { ok: 1 } } }]);
  });

  it('settles an error, a stop and the deadline, each aborting the work with its reason', () => {
    const cases = [
      [{ type: 'error', message: 'boom' }, 500, { kind: 'error', message: 'boom' }],
      [{ type: 'stop', message: 'run stopped' }, 500, { kind: 'stopped', message: 'run stopped' }],
      [{ type: 'timer' }, 1_100, { kind: 'timeout', message: 'no result within 1000 ms' }],
    ] as const;
    for (const [event, now, outcome] of cases) {
      const step = attemptStep(started, event, now);
      expect(step.value?.outcome).toEqual(outcome);
      expect(step.effects).toEqual([
        { type: 'abort', reason: outcome.message },
        { type: 'settled', outcome },
      ]);
    }
  });

  it('times out a result or an error that comes at or past the deadline, whatever the timer did', () => {
    for (const event of [
      { type: 'result', value: 'late' },
      { type: 'error', message: 'boom' },
    ] as const) {
      const step = attemptStep(started, event, 1_100);
      expect(step.value?.outcome).toEqual({ kind: 'timeout', message: 'no result within 1000 ms' });
    }
  });

  it('waits again when the timer fires before the deadline', () => {
    expect(attemptStep(started, { type: 'timer' }, 600)).toEqual({
      value: started,
      effects: [{ type: 'wait', deadlineAt: 1_100 }],
    });
  });

  it('ignores a late result or error after it settled, and anything else silently', () => {
    const settled = attemptStep(started, { type: 'timer' }, 1_100).value;
    const late = [{ type: 'ignored', code: 'late_result' }];
    expect(attemptStep(settled, { type: 'result', value: 1 }, 1_200)).toEqual({
      value: settled,
      effects: late,
    });
    expect(attemptStep(settled, { type: 'error', message: 'x' }, 1_200).effects).toEqual(late);
    expect(attemptStep(settled, { type: 'timer' }, 1_200).effects).toEqual([]);
    expect(attemptStep(settled, { type: 'stop', message: 'closed' }, 1_200).effects).toEqual([]);
  });
});

describe('attemptSpawn and spawnVerdict', () => {
  it('numbers spawns one past the stored count, under the parent, named by spawnId when given', () => {
    const node = { id: 'bull', agent: 'bullish' };
    expect(attemptSpawn({ runId: 'r', node, spawns: 2, parent: undefined })).toEqual({
      parent: '',
      id: 'r/bull-3',
      role: 'bullish',
      spawn: 3,
    });
    const named = attemptSpawn({
      runId: 'r',
      node: { ...node, action: 'spawn' },
      spawns: 0,
      parent: 'lead',
      spawnId: ({ node: id, spawn }) => `${id}#${spawn}`,
    });
    expect(named?.id).toBe('bull#1');
  });

  it('reads a limit of the tree as a refusal with its code', () => {
    const topology = createTopology({ maxSpawnDepth: 1, maxChildrenPerAgent: 1 });
    topology.register({ id: 'lead' });
    expect(spawnVerdict(topology.spawn({ parent: 'lead', id: 'a' }))).toEqual({ ok: true, depth: 1 });
    const refused = spawnVerdict(topology.spawn({ parent: 'lead', id: 'b' }));
    expect(refused).toMatchObject({
      ok: false,
      kind: 'refused',
      message: expect.stringMatching(/^too_many_children: /),
    });
  });

  it('reads a thrown error as a refusal, and a cancelled wait as stopped', () => {
    expect(spawnVerdict({ thrown: new Error('bad id') })).toEqual({
      ok: false,
      kind: 'refused',
      message: 'bad id',
    });
    expect(spawnVerdict({ thrown: 'bare' })).toEqual({ ok: false, kind: 'refused', message: 'bare' });
    const cancelled = new EnvelopeError('cancelled', 'The wait was cancelled');
    expect(spawnVerdict({ thrown: cancelled })).toEqual({ ok: false, kind: 'stopped', message: 'cancelled' });
  });
});
