// The former names kept for one minor version are the very values of their new names.
import { canonicalJson as coreCanonicalJson } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { canonicalJson, DEFAULT_MAX_PENDING, DEFAULT_MAX_PENDING_CONFIRMATIONS } from '../src/index.js';

describe('former names', () => {
  it('DEFAULT_MAX_PENDING is DEFAULT_MAX_PENDING_CONFIRMATIONS', () => {
    expect(DEFAULT_MAX_PENDING).toBe(DEFAULT_MAX_PENDING_CONFIRMATIONS);
  });
});

describe('canonicalJson (deprecated)', () => {
  it("writes what core's canonicalJson writes, and refuses what is not JSON as invalid_action", () => {
    const value = { b: 1, a: [{ d: 2, c: 3 }] };
    expect(canonicalJson(value)).toBe(coreCanonicalJson(value));
    expect(() => canonicalJson(Number.NaN)).toThrow(expect.objectContaining({ code: 'invalid_action' }));
  });
});
