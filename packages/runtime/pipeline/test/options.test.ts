import { createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createPipelineRunner, definePipeline, planRun, type PipelineRunnerOptions } from '../src/index.js';

function refusal(options: Partial<PipelineRunnerOptions>): boolean {
  try {
    createPipelineRunner({
      store: createMemoryStore(),
      work: () => null,
      ...options,
    } as PipelineRunnerOptions);
  } catch (error) {
    return isParleyError(error, 'invalid_argument');
  }
  return false;
}

describe('createPipelineRunner options', () => {
  it('refuses a missing store or work, and limits out of range', () => {
    expect(refusal({ store: undefined as never })).toBe(true);
    expect(refusal({ work: 'x' as never })).toBe(true);
    expect(refusal({ maxRuns: 0 })).toBe(true);
    expect(refusal({ maxParallelPerRun: 1.5 })).toBe(true);
    expect(refusal({ ttlMs: -1 })).toBe(true);
    expect(refusal({ ttlMs: 60_000, maxRuns: 2 })).toBe(false);
  });
});

describe('planRun', () => {
  const pipeline = definePipeline({
    name: 'p',
    nodes: [
      { id: 'a', kind: 'task', agent: 'x' },
      { id: 'b', kind: 'task', agent: 'y', dependsOn: ['a'] },
      { id: 'c', kind: 'task', agent: 'z', dependsOn: ['b'] },
    ],
  });
  const record = (status: 'done' | 'failed' | 'running' | 'rejected' | 'escalated') =>
    ({ v: 1, status, attempts: 1, spawns: 0, revision: 0, failures: {} }) as const;

  it('starts nothing while a dependency runs, and skips a chain behind a failure in one pass', () => {
    expect(planRun(pipeline, { a: record('running') })).toEqual({ start: [], skip: [], finished: false });
    expect(planRun(pipeline, { a: record('failed') })).toEqual({
      start: [],
      skip: [
        { id: 'b', reason: 'a failed' },
        { id: 'c', reason: 'b skipped' },
      ],
      finished: true,
      status: 'failed',
    });
  });

  it('ranks how a run ended: failed, then escalated, then rejected', () => {
    const ended = (a: 'escalated' | 'rejected' | 'done') =>
      planRun(pipeline, { a: record(a), b: record('done'), c: record('done') }).status;
    expect([ended('escalated'), ended('rejected'), ended('done')]).toEqual([
      'escalated',
      'rejected',
      'succeeded',
    ]);
  });
});
