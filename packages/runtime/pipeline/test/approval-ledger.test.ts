import type { ConsentFact, ConsentLedger } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { drive, flush, MIN, setUp } from './helpers.js';

const pipeline = definePipeline({
  name: 'approve',
  owner: 'quant_lead',
  nodes: [
    { id: 'plan', kind: 'task', agent: 'quant_strategist' },
    { id: 'approve', kind: 'approval', channel: '#approvals', dependsOn: ['plan'], timeoutMs: 60 * MIN },
    { id: 'execute', kind: 'task', agent: 'executor', dependsOn: ['approve'] },
  ],
});

/** A consent ledger keeping facts per session in order (a repeated fact once), refusing `refuse` kinds. */
function recordingLedger(): ConsentLedger & { facts: Map<string, ConsentFact[]>; refuse: Set<string> } {
  const facts = new Map<string, ConsentFact[]>();
  const refuse = new Set<string>();
  return {
    facts,
    refuse,
    async append(session, fact) {
      if (refuse.has(fact.kind)) return { ok: false, code: 'store_failed', message: 'the store is down' };
      const list = facts.get(session) ?? [];
      if (!list.some((f) => JSON.stringify(f) === JSON.stringify(fact))) list.push(fact);
      facts.set(session, list);
      return { ok: true };
    },
  };
}

describe('approval nodes with a ledger', () => {
  it('records the request, the answer and the decision in the run’s chain', async () => {
    const ledger = recordingLedger();
    const { clock, runner } = setUp(() => ({}), { ledger });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(ledger.facts.get('pipeline:r1')?.map((f) => f.kind)).toEqual(['request']);
    await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chairman', reason: 'Go' });
    const result = await drive(clock, run);
    expect(result.ok && result.status).toBe('succeeded');
    expect(ledger.facts.get('pipeline:r1')).toEqual([
      expect.objectContaining({ kind: 'request', ref: 'approval:approve', requester: 'quant_lead' }),
      {
        kind: 'answer',
        confirmationId: 'approval:approve',
        authorId: 'chairman',
        via: 'reply',
        text: 'approved: Go',
      },
      expect.objectContaining({ kind: 'decision', outcome: 'confirmed', decidedBy: 'chairman' }),
    ]);
  });

  it('records a rejection as cancelled', async () => {
    const ledger = recordingLedger();
    const { clock, runner } = setUp(() => ({}), { ledger });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    await runner.decide(pipeline, 'r1', 'approve', { approved: false });
    await drive(clock, run);
    expect(ledger.facts.get('pipeline:r1')?.at(-1)).toMatchObject({ kind: 'decision', outcome: 'cancelled' });
  });

  it('stores no decision whose answer cannot be recorded (not_recorded), and takes it once it can', async () => {
    const ledger = recordingLedger();
    ledger.refuse.add('answer');
    const { clock, runner, calls } = setUp(() => ({}), { ledger });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chairman' })).toMatchObject({
      ok: false,
      code: 'not_recorded',
    });
    expect((await runner.snapshot(pipeline, 'r1'))?.['approve']?.status).toBe('waiting');
    expect(calls).toEqual(['plan#1']);
    ledger.refuse.clear();
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chairman' })).toEqual({
      ok: true,
    });
    expect((await drive(clock, run)).ok).toBe(true);
    expect(calls).toEqual(['plan#1', 'execute#1']);
  });

  it('records an expired approval as timed_out, and a decision after it too', async () => {
    const ledger = recordingLedger();
    const { clock, runner } = setUp(() => ({}), { ledger });
    await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(ledger.facts.get('pipeline:r1')?.map((f) => f.kind)).toEqual(['request', 'decision']);
    expect(ledger.facts.get('pipeline:r1')?.at(-1)).toMatchObject({
      outcome: 'timed_out',
      reason: 'timeout',
    });
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true })).toMatchObject({
      code: 'not_waiting',
    });
  });

  it('reports (refused, not_recorded) a request or decision it could not record, and goes on', async () => {
    const ledger = recordingLedger();
    ledger.refuse.add('request');
    const { clock, runner, events } = setUp(() => ({}), { ledger });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(events.refused).toEqual([expect.objectContaining({ runId: 'r1', code: 'not_recorded' })]);
    ledger.refuse.clear();
    ledger.refuse.add('decision');
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chairman' })).toEqual({
      ok: true,
    });
    expect(events.refused.map((e) => e.code)).toEqual(['not_recorded', 'not_recorded']);
    expect((await drive(clock, run)).ok).toBe(true);
  });

  it('rejects a ledger without an append function', () => {
    expect(() => setUp(() => ({}), { ledger: {} as ConsentLedger })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
