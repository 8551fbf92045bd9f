import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { adapterConformanceCases } from '../src/index.js';
import { fakeSubject } from './fake-subject.js';

describe('adapterConformanceCases', () => {
  const cases = adapterConformanceCases();

  it('names each case once', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(6);
  });

  it.each(cases.map((c) => [c.name, c] as const))('passes on the fake channel: %s', async (_, c) => {
    await c.run(fakeSubject());
  });

  it("fails the refusal case when the other member's click carries the requester's id", async () => {
    const failed: string[] = [];
    for (const c of cases) {
      const error = await c.run(fakeSubject({ sameUser: true })).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (error === undefined) continue;
      expect(isParleyError(error, 'assertion_failed')).toBe(true);
      expect(String((error as Error).message)).toMatch(/^Adapter conformance: expected /);
      failed.push(c.name);
    }
    expect(failed).toEqual([expect.stringContaining('another member')]);
  });
});
