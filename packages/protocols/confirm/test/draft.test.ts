import { describe, expect, it } from 'vitest';
import { recordDraft, sameRecord } from '../src/internal/draft.js';
import type { ConfirmationRecord } from '../src/internal/records.js';

// sameRecord decides when the gate keeps one object for its entry's record and the committed copy
// its next write is based on (internal): only when every field holds the very same value.

const FULL: ConfirmationRecord = {
  rev: 2,
  id: 'cfm_1',
  sessionKey: 'slack:T1:C1',
  action: { name: 'deploy', args: { to: 'prod' }, digest: 'a'.repeat(64) },
  summary: 'Deploy',
  requester: 'U1',
  approvers: 'requester',
  steps: [{ prompt: 'Sure?', expect: 'yes' }],
  step: 0,
  reprompts: 1,
  timeoutMs: 300_000,
  requestedAt: 10,
  firstPromptedAt: 11,
  promptedAt: 12,
  expiresAt: 300_012,
  owner: 'replica-a',
  deliveredAt: 13,
  order: { scope: 'C1', position: [7] },
};

describe('sameRecord', () => {
  it('holds for a draft of a record, delivery included', () => {
    expect(sameRecord(FULL, recordDraft(FULL, true))).toBe(true);
    expect(sameRecord(recordDraft(FULL, true), FULL)).toBe(true);
  });

  it('fails when any one field differs, is missing on either side, or is an equal copy of an object', () => {
    const fields = Object.keys(FULL) as (keyof ConfirmationRecord)[];
    expect(fields).toHaveLength(18); // every field of the type is set in FULL
    for (const field of fields) {
      const value = FULL[field];
      const other =
        typeof value === 'number'
          ? value + 1
          : typeof value === 'string'
            ? `${value}x`
            : structuredClone(value);
      const changed = { ...FULL, [field]: other } as ConfirmationRecord;
      expect([field, sameRecord(FULL, changed)]).toEqual([field, false]);
      const { [field]: _, ...without } = FULL;
      expect([field, sameRecord(FULL, without as ConfirmationRecord)]).toEqual([field, false]);
      expect([field, sameRecord(without as ConfirmationRecord, FULL)]).toEqual([field, false]);
    }
  });

  it('fails for a draft without the delivery when the record has one', () => {
    expect(sameRecord(FULL, recordDraft(FULL, false))).toBe(false);
  });
});
