import { describe, expect, it } from 'vitest';
import { NODE_STATUSES, type NodeEvent, type NodeRecord, type NodeStatus, nodeStep } from '../src/index.js';

// The node's rules, alone: every event on every state it applies to, and on every other state a
// `stale` answer that leaves the record as it is (the kernel then writes nothing).
const lifeMs = 1_000;
const base: NodeRecord = { v: 1, status: 'pending', attempts: 0, spawns: 0, revision: 0, failures: {} };
const at = (status: NodeStatus, extra: Partial<NodeRecord> = {}): NodeRecord => ({
  ...base,
  status,
  ...extra,
});

const events: Record<NodeEvent['type'], NodeEvent> = {
  start: { type: 'start', spawnId: 'r1/a-1', spawned: true, revisedFor: undefined, lifeMs },
  fail: { type: 'fail', kind: 'error', message: 'boom', retry: { kind: 'error', message: 'boom' }, lifeMs },
  revise: { type: 'revise', revise: { round: 1, issues: [{ description: 'x' }], attempt: 1 }, lifeMs },
  end: { type: 'end', status: 'done', output: 'out', lifeMs },
  skip: { type: 'skip', reason: 'dependency failed', lifeMs },
  wait: { type: 'wait', deadlineAt: 500, lifeMs },
  decide: { type: 'decide', decision: { approved: true, by: 'chair' }, lifeMs },
  expire: { type: 'expire', lifeMs },
  unknown: { type: 'unknown', owner: 'runner-a', lifeMs },
};

/** The states each event applies to (at now = 100, before a deadline at 500 unless it says so). */
const applies: Record<NodeEvent['type'], readonly NodeStatus[]> = {
  start: ['pending', 'running'],
  fail: ['running'],
  revise: ['running'],
  end: ['running'],
  skip: ['pending'],
  wait: ['pending'],
  decide: ['waiting'],
  expire: [], // only at or after the deadline: below
  unknown: ['running'],
};

describe('nodeStep', () => {
  for (const [type, event] of Object.entries(events) as [NodeEvent['type'], NodeEvent][]) {
    for (const status of NODE_STATUSES) {
      const record = at(status, { deadlineAt: 500 });
      const applied = applies[type].includes(status);
      it(`${applied ? 'applies' : 'refuses as stale'} ${type} on a ${status} node`, () => {
        const result = nodeStep(record, event, 100);
        if (!applied) {
          expect(result).toEqual({ value: record, effects: [{ type: 'stale', status }] });
          return;
        }
        expect(result.effects[0]).toEqual({ type: 'moved', from: status, fromRevision: 0 });
        expect(result.deadlineAt).toBe(100 + lifeMs);
        expect(result.value).not.toBe(record);
      });
    }
  }

  it('starts a revision of a done node only for a review’s request, with a clean retry context', () => {
    const done = at('done', { attempts: 1, retry: { kind: 'error', message: 'old' } });
    const revisedFor = { review: 'review', attempt: 1 };
    const start = { ...events.start, revisedFor } as NodeEvent;
    expect(nodeStep(done, start, 100).value).toMatchObject({ status: 'running', attempts: 2, revisedFor });
    expect(nodeStep(done, start, 100).value?.retry).toBeUndefined();
    expect(
      nodeStep(at('running', { retry: { kind: 'error', message: 'kept' } }), events.start, 1).value?.retry,
    ).toEqual({ kind: 'error', message: 'kept' });
  });

  it('counts failures per kind and ends with the revision counted only when it succeeded', () => {
    const failed = nodeStep(at('running', { failures: { error: 1 } }), events.fail, 100).value;
    expect(failed).toMatchObject({
      failures: { error: 2 },
      code: 'error',
      reason: 'boom',
      status: 'running',
    });
    const revised = nodeStep(
      at('running', { revision: 1 }),
      { ...events.end, revised: true } as NodeEvent,
      100,
    );
    expect(revised.value).toMatchObject({ status: 'done', revision: 2, output: 'out', endedAt: 100 });
    const kept = nodeStep(
      at('running', { output: 'before' }),
      { type: 'end', status: 'skipped', lifeMs },
      100,
    );
    expect(kept.value).toMatchObject({ status: 'skipped', output: 'before' });
  });

  it('expires a waiting approval at its deadline, and a decision at or after it', () => {
    const waiting = at('waiting', { deadlineAt: 500 });
    expect(nodeStep(waiting, events.expire, 499).effects).toEqual([{ type: 'stale', status: 'waiting' }]);
    expect(nodeStep(waiting, events.expire, 500).value).toMatchObject({ status: 'failed', code: 'expired' });
    const late = nodeStep(waiting, events.decide, 500);
    expect(late.value).toMatchObject({ status: 'failed', code: 'expired' });
    expect(late.effects).toContainEqual({ type: 'expired' });
    expect(nodeStep(at('waiting'), events.expire, 0).value).toMatchObject({ code: 'expired' }); // no deadline: fail closed
  });

  it('stores a decision with who and why, and a rejection’s reason', () => {
    const waiting = at('waiting', { deadlineAt: 500 });
    expect(nodeStep(waiting, events.decide, 100).value).toMatchObject({
      status: 'done',
      output: { approved: true, decidedAt: 100, by: 'chair' },
    });
    const no = { type: 'decide', decision: { approved: false, reason: 'too risky' }, lifeMs } as const;
    expect(nodeStep(waiting, no, 100).value).toMatchObject({ status: 'rejected', reason: 'too risky' });
  });

  it('reports an unknown outcome with the owner whose lease ran out', () => {
    const value = nodeStep(at('running', { attempts: 3 }), events.unknown, 100).value;
    expect(value).toMatchObject({ status: 'failed', code: 'unknown_outcome' });
    expect(value?.reason).toContain('attempt 3 was claimed by runner-a');
  });
});
