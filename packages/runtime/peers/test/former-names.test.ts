// The former names kept for one minor version are the very values of their new names.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CONVERSATION_ROUNDS, DEFAULT_MAX_ROUNDS } from '../src/index.js';

describe('former names', () => {
  it('DEFAULT_MAX_ROUNDS is DEFAULT_MAX_CONVERSATION_ROUNDS', () => {
    expect(DEFAULT_MAX_ROUNDS).toBe(DEFAULT_MAX_CONVERSATION_ROUNDS);
  });
});
