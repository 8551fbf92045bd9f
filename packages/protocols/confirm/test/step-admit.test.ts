import { describe, expect, it } from 'vitest';
import { type AdmissionView, adopt, admit } from '../src/internal/step-admit.js';
import type { ConfirmationRecord } from '../src/internal/records.js';

// The pure admission and replica-sync rules (internal), table-driven.

const FREE: AdmissionView = {
  aborted: false,
  held: 0,
  closed: false,
  multiStep: false,
  grant: null,
  active: false,
  queued: 0,
};
const RULES = { whenPending: 'queue', maxQueued: 2, maxPending: 3, standing: false } as const;

describe('admit', () => {
  it.each([
    [
      'an aborted signal',
      { ...FREE, aborted: true },
      RULES,
      { kind: 'settle', reason: 'signal', record: true },
    ],
    [
      'a full gate, before anything is read',
      { ...FREE, grant: 'unread', held: 3 },
      RULES,
      { kind: 'settle', reason: 'too_many_pending', record: false },
    ],
    ['a full gate, once admitted', { ...FREE, held: 3 }, RULES, { kind: 'prompt' }],
    [
      'standing allowances on',
      { ...FREE, grant: 'unread' },
      { ...RULES, standing: true },
      { kind: 'read_grant' },
    ],
    [
      'standing allowances on, multi-step',
      { ...FREE, grant: 'unread', multiStep: true },
      { ...RULES, standing: true },
      { kind: 'prompt' },
    ],
    [
      'an allowance that covers it',
      { ...FREE, grant: 'ou_a' },
      RULES,
      { kind: 'settle', reason: 'standing_allowance', decidedBy: 'ou_a' },
    ],
    ['a closed gate', { ...FREE, closed: true }, RULES, { kind: 'settle', reason: 'closed', record: false }],
    ['a busy session', { ...FREE, active: true }, RULES, { kind: 'queue' }],
    ['a full queue', { ...FREE, active: true, queued: 2 }, RULES, { kind: 'settle', reason: 'session_busy' }],
    [
      'reject',
      { ...FREE, active: true },
      { ...RULES, whenPending: 'reject' },
      { kind: 'settle', reason: 'session_busy' },
    ],
    [
      'supersede',
      { ...FREE, active: true, queued: 5 },
      { ...RULES, whenPending: 'supersede' },
      { kind: 'supersede' },
    ],
  ] as const)('%s', (_name, view, rules, expected) => {
    expect(admit(view, rules)).toMatchObject(expected);
  });
});

const RECORD = {
  rev: 5,
  step: 1,
  reprompts: 0,
  promptedAt: 50,
  deliveredAt: 60,
  expiresAt: 1_000,
  order: { scope: 'g', position: [7] },
} as unknown as ConfirmationRecord; // only the fields `adopt` reads
const KNOWN = { rev: 4, step: 1, reprompts: 0, promptedAt: 50, delivered: false, expiresAt: 1_000 };

describe('adopt', () => {
  it('never takes an older or the same version of a record', () => {
    expect(adopt({ ...KNOWN, rev: 5 }, RECORD)).toBeUndefined();
    expect(adopt({ ...KNOWN, rev: 6 }, RECORD)).toBeUndefined();
  });

  it('learns a delivery once, and a new prompt with its delivery', () => {
    expect(adopt(KNOWN, RECORD)).toEqual({ delivered: { deliveredAt: 60, order: RECORD.order } });
    expect(adopt({ ...KNOWN, delivered: true }, RECORD)).toEqual({});
    expect(adopt({ ...KNOWN, delivered: true, step: 0 }, RECORD)).toEqual({
      prompt: { step: 1, reprompts: 0, promptedAt: 50 },
      delivered: { deliveredAt: 60, order: RECORD.order },
    });
  });

  it('moves the deadline to the stored one', () => {
    expect(adopt({ ...KNOWN, delivered: true, rev: undefined, expiresAt: 900 }, RECORD)).toEqual({
      expiresAt: 1_000,
    });
  });
});
