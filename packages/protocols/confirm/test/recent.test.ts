// RecentSet is internal (it bounds the ids of recently settled confirmations); tested directly.
import { describe, expect, it } from 'vitest';
import { RecentSet } from '../src/internal/recent.js';

describe('RecentSet', () => {
  it('remembers at most capacity keys and forgets the oldest first', () => {
    const recent = new RecentSet(2);
    recent.add('a');
    recent.add('b');
    recent.add('a'); // already there: not added again, not moved
    expect(recent.size).toBe(2);
    recent.add('c');
    expect([recent.has('a'), recent.has('b'), recent.has('c')]).toEqual([false, true, true]);
    recent.add('d');
    expect([recent.has('b'), recent.has('c'), recent.has('d')]).toEqual([false, true, true]);
    expect(recent.size).toBe(2);
  });
});
