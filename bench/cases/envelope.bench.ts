import { createCodec, defineIntents } from '@parley/envelope';
import { z } from 'zod';
import { suite } from '../lib.js';

// A Bullish_Brief-like report delivered child → parent: a typical envelope of about 400 bytes.
const Brief = z.object({
  date: z.string(),
  market: z.string(),
  thesis: z.string(),
  key_levels: z.array(
    z.object({
      type: z.enum(['support', 'resistance']),
      price: z.number(),
      timeframe: z.string(),
      evidence: z.string(),
    }),
  ),
  invalidation: z.string(),
  confidence: z.number(),
});
const intents = defineIntents({ deliver_report: { direction: 'up', payload: Brief } });

/** The same envelope as one zod schema: what a host would write without Parley. */
const ZodEnvelope = z.object({
  id: z.string().min(1).max(256),
  from: z.string().min(1).max(256),
  to: z.string().min(1).max(256),
  intent: z.literal('deliver_report'),
  ref_task: z.string().min(1).max(256).optional(),
  payload: Brief,
  expect_response: z.boolean().optional(),
  request_id: z.string().min(1).max(256).optional(),
  in_reply_to: z.string().min(1).max(256).optional(),
  sent_at: z.number().int().min(0),
  spawn_depth: z.number().int().min(0).max(5),
});

const envelope = {
  id: 'V1StGXR8_Z5jdHi6B-myT',
  from: 'bullish_researcher',
  to: 'quant_strategist',
  intent: 'deliver_report',
  ref_task: 'quant-pipeline-2026-04-10',
  payload: {
    date: '2026-04-10',
    market: 'BTC/USDT',
    thesis: 'Higher low holds',
    key_levels: [{ type: 'support', price: 81250, timeframe: 'H4', evidence: 'OB + FVG' }],
    invalidation: 'H4 close below 80k',
    confidence: 0.62,
  },
  expect_response: false,
  sent_at: 1775800000000,
  spawn_depth: 2,
};
const text = JSON.stringify(envelope);
const { invalidation: _i, confidence: _c, ...incomplete } = envelope.payload;
const twoMissing = JSON.stringify({ ...envelope, payload: incomplete });
let n = 0;
const codecOptions = {
  generateId: () => `env_${++n}`,
  clock: { now: () => 0, setTimeout: () => ({}) as never, clearTimeout: () => {} },
};

suite(`envelope: decode a valid ${text.length}-byte envelope from JSON text`, {
  cases: {
    'parley decode': () => {
      const codec = createCodec(intents, codecOptions);
      return () => codec.decode(text);
    },
    'JSON.parse + zod safeParse': () => () => ZodEnvelope.safeParse(JSON.parse(text)),
  },
  goals: [{ case: 'parley decode', vs: 'JSON.parse + zod safeParse', slowerByAtMost: 1.3 }],
});

suite('envelope: report two missing fields (missing_fields reply included)', {
  cases: {
    'parley decode': () => {
      const codec = createCodec(intents, codecOptions);
      return () => codec.decode(twoMissing);
    },
    // Reporting needs the issues, so the baseline reads them (zod builds its error lazily, on read).
    'JSON.parse + zod failing safeParse': () => () => {
      const result = ZodEnvelope.safeParse(JSON.parse(twoMissing));
      return result.success ? result.data : result.error.issues;
    },
    'zod failing safeParse, issues unread (information)': () => () =>
      ZodEnvelope.safeParse(JSON.parse(twoMissing)),
  },
  goals: [{ case: 'parley decode', vs: 'JSON.parse + zod failing safeParse', slowerByAtMost: 1.5 }],
});
