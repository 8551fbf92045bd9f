import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CLAIM_GUARD,
  type DetectContext,
  defineFieldClaimDetector,
  findClaims,
} from '../src/index.js';
import { fields, hpClaims, type World, world } from './helpers.js';

// Cost must grow linearly with the model's output. These tests count work (the characters the
// clause guard examines) on an input and on one 8 times longer; the time
// the detectors take on growing input is measured by `npm run bench` (bench/cases/growth.bench.ts),
// not asserted here.

const context: DetectContext = { attempt: 1, applied: [] };

/** A guard that counts the characters it is asked to search. */
class CountingGuard extends RegExp {
  examined = 0;
  override exec(text: string): RegExpExecArray | null {
    this.examined += text.length;
    return super.exec(text);
  }
}

describe('the narrative detectors on long model output', () => {
  it('[EFFECT-04] search a clause with the guard once, however many claims it holds', async () => {
    const examined = async (n: number): Promise<number> => {
      const guard = new CountingGuard(DEFAULT_CLAIM_GUARD.source, DEFAULT_CLAIM_GUARD.flags);
      findClaims('ship 1 crate; '.repeat(n), [{ pattern: /\bship (?<count>\d+) crates?\b/ }], guard);
      return guard.examined;
    };
    const small = await examined(1_000);
    expect(small).toBeGreaterThan(0);
    expect((await examined(8_000)) / small).toBeLessThan(16);
  });

  it('return the same claims a clause guard would skip, however long the text', async () => {
    const found = await hpClaims().detect(
      { text: `${'x '.repeat(10_000)}if you lose 5 HP; you lose 6 HP` },
      {},
      context,
    );
    expect(found.map((conflict) => conflict.evidence)).toEqual(['lose 6 HP']);
  });

  it('cut a claim of any length to a bounded evidence and reason', async () => {
    const found = await hpClaims().detect({ text: `you lose ${'9'.repeat(50_000)} HP` }, {}, context);
    expect(found[0]?.evidence?.length).toBeLessThanOrEqual(120);
    expect(found[0]?.mismatch_reason.length).toBeLessThan(400);
  });
});

describe('defineFieldClaimDetector: linear in the text', () => {
  const prose = 'The night is quiet and the river has always been there. Her class is now paladin. ';

  it('compares a bounded number of words per claim: 8 times the text, at most 8 times the work', async () => {
    const work = async (n: number): Promise<{ compared: number; found: number }> => {
      let compared = 0;
      const counting = defineFieldClaimDetector<World>({
        fields,
        normalize: (text) => {
          compared++;
          return text.toLowerCase().replace(/'s$/, '').trim();
        },
      });
      const found = await counting.detect({ text: prose.repeat(n) }, world, context);
      return { compared, found: found.length };
    };
    const small = await work(200);
    const large = await work(1_600);
    expect([small.found, large.found]).toEqual([200, 1_600]);
    expect(large.compared / small.compared).toBeLessThanOrEqual(8);
  });

  it('searches each clause with the guard once: 8 times the text, under 16 times the characters', async () => {
    const examined = async (n: number): Promise<number> => {
      const guard = new CountingGuard(DEFAULT_CLAIM_GUARD.source, DEFAULT_CLAIM_GUARD.flags);
      await defineFieldClaimDetector<World>({ fields, guard }).detect(
        { text: prose.repeat(n) },
        world,
        context,
      );
      return guard.examined;
    };
    const small = await examined(200);
    expect(small).toBeGreaterThan(0);
    expect((await examined(1_600)) / small).toBeLessThan(16);
  });
});
