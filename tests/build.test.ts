// The rule scripts/build.mjs uses to skip a package whose build is current (so `npm run example`
// builds only what changed), on made-up modification times.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { isStale } from '../scripts/build.mjs';

describe('isStale (build.mjs)', () => {
  it('is false when every output is newer than every input', () => {
    expect(isStale([200, 210, 205, 205], [100, 150, 199])).toBe(false);
  });

  it('is true when a source, config or sibling build changed after the oldest output', () => {
    expect(isStale([200, 210, 205, 205], [100, 201])).toBe(true);
  });

  it('is true when an output is missing, or there is none', () => {
    expect(isStale([200, undefined, 205, 205], [100])).toBe(true);
    expect(isStale([], [])).toBe(true);
  });
});
