// Cost that must grow linearly with the input. Each suite times the same operation on an input and
// on one 8 times larger: linear work takes about 8× as long, quadratic work about 64×. These were
// CPU-timed assertions in the test suite; a loaded CI machine pushed one of them over its bound, so
// the timing lives here and the tests count the work instead (packages/protocols/conflict/test/linear.test.ts,
// packages/protocols/envelope/test/bounded-replies.test.ts).
import { createManualClock, createSequentialIds } from '@parley/core';
import { createCodec, defineIntents } from '@parley/envelope';
import { z } from 'zod';
// The reference game's HP detector, built on @parley/conflict's findClaims (it lives with the game).
import { defineHpClaimDetector } from '../../examples/trpg-gm/src/hp-claim.js';
import { frame } from '../../packages/protocols/envelope/test/helpers.js';
import { suite } from '../lib.js';

const context = { attempt: 1, applied: [] };

// The quadratic guard search this replaced took 52–75× for 8× the claims.
const hp = defineHpClaimDetector();
const claims = (n: number) => () => {
  const proposal = { text: 'HP-1 '.repeat(n) };
  return () => hp.detect(proposal, {}, context);
};
suite('conflict: HP detector, a run of claims with no clause break (8× the text)', {
  cases: { '500 claims (2.5 KB)': claims(500), '4 000 claims (20 KB)': claims(4_000) },
  goals: [{ case: '4 000 claims (20 KB)', vs: '500 claims (2.5 KB)', slowerByAtMost: 16 }],
});

const intents = defineIntents({
  report: { direction: 'any', payload: z.object({ values: z.array(z.string()) }) },
  form: {
    direction: 'any',
    payload: z.strictObject({ name: z.string(), fields: z.record(z.string(), z.string()) }),
  },
});
const codec = createCodec(intents, { clock: createManualClock(), generateId: createSequentialIds('env_') });
const keys = (n: number, value: (i: number) => number): Record<string, number> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]));

/** Decoding a refused frame and encoding its bounded reply, as a host answering the sender does. */
const refusal = (text: string) => () => () => {
  const result = codec.decode(text);
  if (!result.ok && result.code === 'invalid_payload' && result.reply !== undefined)
    codec.encode(result.reply);
  return result;
};

const inputs: readonly (readonly [string, (n: number) => string])[] = [
  ['wrong-typed numbers', (n) => frame('report', { values: Array(n).fill(1) })],
  [
    'unknown frame fields',
    (n) =>
      frame(
        'report',
        { values: [] },
        keys(n, () => 0),
      ),
  ],
  ['unknown payload keys', (n) => frame('form', { name: 'n', fields: {}, ...keys(n, () => 0) })],
  ['wrong-typed record values', (n) => frame('form', { name: 'n', fields: keys(n, (i) => i) })],
];
/** The work the codec hands to others on the same text: JSON.parse, then the intent's payload schema. */
const delegated = (text: string) => () => {
  const { intent } = JSON.parse(text) as { intent: keyof typeof intents.specs };
  const schema = intents.specs[intent].payload as z.ZodType;
  return () => {
    const parsed = JSON.parse(text) as { payload: unknown };
    return schema.safeParse(parsed.payload);
  };
};

for (const [name, make] of inputs) {
  suite(`envelope: refusing ${name} (8× the input)`, {
    cases: {
      'codec, 1 000': refusal(make(1_000)),
      'codec, 8 000': refusal(make(8_000)),
      'JSON.parse + zod, 1 000': delegated(make(1_000)),
      'JSON.parse + zod, 8 000': delegated(make(8_000)),
    },
    // zod alone takes 8–20× for 8× the issues (collector and caches), so the codec's growth is read
    // against the delegated work's: linear codec work keeps the two within a small factor at either
    // size, quadratic work adds ~8× at the larger one.
    goals: [
      { case: 'codec, 8 000', vs: 'codec, 1 000' },
      { case: 'JSON.parse + zod, 8 000', vs: 'JSON.parse + zod, 1 000' },
      { case: 'codec, 1 000', vs: 'JSON.parse + zod, 1 000' },
      { case: 'codec, 8 000', vs: 'JSON.parse + zod, 8 000', slowerByAtMost: 4 },
    ],
  });
}
