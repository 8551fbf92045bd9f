import { describe, expect, it } from 'vitest';
import type { DecisionRecord, ConfirmationRecord } from '../src/internal/records.js';
import { decisionStep, PENDING_KEPT_MS, pendingStep } from '../src/internal/step-store.js';

// The kernel steps of the stored records (internal): a pending record is replaced only by the
// next version of the one a change was made from; the first decision stands; a use is authorize.

const pending = (rev: number): ConfirmationRecord =>
  ({ rev, expiresAt: 5_000 }) as unknown as ConfirmationRecord; // the fields the step reads
const DECISION = {
  id: 'cfm_1',
  outcome: 'confirmed',
  decidedAt: 10,
  expiresAt: 20,
  action: { name: 'a', args: {}, digest: 'd'.repeat(64) },
} as unknown as DecisionRecord; // the fields the steps read

describe('pendingStep', () => {
  it('writes the first version only when no record exists, kept a day past its deadline', () => {
    expect(pendingStep(undefined, { type: 'write', base: null, record: pending(1) })).toEqual({
      value: pending(1),
      effects: ['written'],
      deadlineAt: 5_000 + PENDING_KEPT_MS,
    });
    const stored = pending(1);
    expect(pendingStep(stored, { type: 'write', base: null, record: pending(1) })).toEqual({
      value: stored,
      effects: ['lost'],
    });
  });

  it('writes the next version of the one it was made from, and loses to any other', () => {
    expect(pendingStep(pending(2), { type: 'write', base: 2, record: pending(3) }).effects).toEqual([
      'written',
    ]);
    expect(pendingStep(pending(3), { type: 'write', base: 2, record: pending(3) }).effects).toEqual(['lost']);
    expect(pendingStep(pending(2), { type: 'write', base: 2, record: pending(5) }).effects).toEqual(['lost']);
    expect(pendingStep(undefined, { type: 'write', base: 2, record: pending(3) })).toEqual({
      value: undefined,
      effects: ['lost'],
    }); // decided and removed meanwhile: never written back
  });

  it('drops a decided record', () => {
    expect(pendingStep(pending(2), { type: 'drop' })).toEqual({ value: undefined, effects: [] });
  });
});

describe('decisionStep', () => {
  it('keeps the first decision recorded', () => {
    const decide = { type: 'decide', decision: { ...DECISION, outcome: 'cancelled' }, keptMs: 100 } as const;
    expect(decisionStep(undefined, decide, 50)).toEqual({
      value: decide.decision,
      effects: [{ type: 'recorded' }],
      deadlineAt: 150,
    });
    expect(decisionStep(DECISION, decide, 50)).toEqual({
      value: DECISION,
      effects: [{ type: 'exists', record: DECISION }],
    });
  });

  it('uses a confirmed decision for its action once', () => {
    const use = { type: 'use', digest: 'd'.repeat(64), keptMs: 100 } as const;
    const used = decisionStep(DECISION, use, 50);
    expect(used.value).toEqual({ ...DECISION, usedAt: 50 });
    expect(decisionStep(used.value, use, 60).effects).toEqual([{ ok: false, code: 'already_used' }]);
    expect(decisionStep(undefined, use, 60).effects).toEqual([{ ok: false, code: 'unknown_decision' }]);
    expect(decisionStep(DECISION, { ...use, digest: 'e'.repeat(64) }, 60).effects).toEqual([
      { ok: false, code: 'action_mismatch' },
    ]);
    expect(decisionStep({ ...DECISION, decidedAt: 20 }, use, 60).effects).toEqual([
      { ok: false, code: 'not_confirmed' },
    ]);
  });
});
