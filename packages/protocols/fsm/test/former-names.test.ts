// The former names kept for one minor version are the very values of their new names.
import { describe, expect, it } from 'vitest';
import { FSM_REFUSAL_CODES, REFUSAL_CODES } from '../src/index.js';

describe('former names', () => {
  it('REFUSAL_CODES is FSM_REFUSAL_CODES', () => {
    expect(REFUSAL_CODES).toBe(FSM_REFUSAL_CODES);
  });
});
