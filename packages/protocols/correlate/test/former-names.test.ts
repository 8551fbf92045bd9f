// The former names kept for one minor version are the very values of their new names.
import { describe, expect, it } from 'vitest';
import {
  CORRELATE_REFUSAL_CODES,
  DEFAULT_MAX_PENDING,
  DEFAULT_MAX_PENDING_REQUESTS,
  REFUSAL_CODES,
} from '../src/index.js';

describe('former names', () => {
  it('REFUSAL_CODES is CORRELATE_REFUSAL_CODES', () => {
    expect(REFUSAL_CODES).toBe(CORRELATE_REFUSAL_CODES);
  });
  it('DEFAULT_MAX_PENDING is DEFAULT_MAX_PENDING_REQUESTS', () => {
    expect(DEFAULT_MAX_PENDING).toBe(DEFAULT_MAX_PENDING_REQUESTS);
  });
});
