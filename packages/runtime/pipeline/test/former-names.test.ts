// The former names kept for one minor version are the very values of their new names.
import { describe, expect, it } from 'vitest';
import { toMermaid, toPipelineMermaid } from '../src/index.js';

describe('former names', () => {
  it('toMermaid is toPipelineMermaid', () => {
    expect(toMermaid).toBe(toPipelineMermaid);
  });
});
