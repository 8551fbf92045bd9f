import { describe, expect, it } from 'vitest';
import {
  type DetectContext,
  type Detector,
  defineHpClaimDetector,
  defineMoveClaimDetector,
  type Proposal,
  type ToolCall,
} from '../src/index.js';
import { hpCall, moveCall } from './helpers.js';

// Cost must grow linearly with the model's output. Each case times the detector on an input and
// on the same input 8 times longer, takes the fastest of a few runs of each, and asserts a ratio
// under 16 (linear is ~8; the quadratic code this replaced measured 42–61). No absolute times.

const context: DetectContext = { attempt: 1, applied: [] };

function fastest(detector: Detector<unknown>, proposal: Proposal): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    void detector.detect(proposal, {}, context);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** The fastest time at 8× the input over the fastest at 1×. */
function growth(detector: Detector<unknown>, proposalOf: (n: number) => Proposal, n: number): number {
  fastest(detector, proposalOf(n)); // warm up the regular expressions and the JIT
  return fastest(detector, proposalOf(8 * n)) / Math.max(fastest(detector, proposalOf(n)), 0.05);
}

const calls = (n: number, make: (i: number) => ToolCall): ToolCall[] =>
  Array.from({ length: n }, (_, i) => make(i));

describe('the narrative detectors on long model output', () => {
  it('[EFFECT-04] take linear time on a run of HP claims with no clause break', () => {
    const hp = defineHpClaimDetector();
    expect(growth(hp, (n) => ({ text: 'HP-1 '.repeat(n) }), 2_000)).toBeLessThan(16);
  });

  it('[EFFECT-04] take linear time matching many HP claims against many calls', () => {
    const hp = defineHpClaimDetector();
    const proposalOf = (n: number): Proposal => ({
      text: 'You lose 5 HP. '.repeat(n),
      tool_calls: calls(n, (i) => hpCall(`c${i}`, -(i % 7) - 1)),
    });
    expect(growth(hp, proposalOf, 500)).toBeLessThan(16);
  });

  it('[EFFECT-04] take linear time on a run of move claims against many move calls', () => {
    const move = defineMoveClaimDetector({ resolveArea: (text) => text.split(' ')[0] });
    const proposalOf = (n: number): Proposal => ({
      text: 'you walk into the tavern '.repeat(n),
      tool_calls: calls(n, (i) => moveCall(`m${i}`, `area_${i}`)),
    });
    expect(growth(move, proposalOf, 500)).toBeLessThan(16);
  });

  it('return the same claims a clause guard would skip, however long the text', async () => {
    const hp = defineHpClaimDetector();
    const found = await hp.detect(
      { text: `${'x '.repeat(10_000)}if you lose 5 HP; you lose 6 HP` },
      {},
      context,
    );
    expect(found.map((conflict) => conflict.evidence)).toEqual(['lose 6 HP']);
  });

  it('cut a claim of any length to a bounded evidence and reason', async () => {
    const hp = defineHpClaimDetector();
    const found = await hp.detect({ text: `you lose ${'9'.repeat(50_000)} HP` }, {}, context);
    expect(found[0]?.evidence?.length).toBeLessThanOrEqual(120);
    expect(found[0]?.mismatch_reason.length).toBeLessThan(400);
  });
});
