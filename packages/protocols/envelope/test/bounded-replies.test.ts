// Issue 19 §4: every reply and refusal built from a peer's envelope stays within REPLY_LIMITS,
// decodes under the codec's own default limits, and does work linear in the input.
import { createManualClock, createSequentialIds } from '@parley/core';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Codec,
  createCodec,
  createMissingFieldsReply,
  createTopology,
  defineArtifacts,
  defineIntents,
  type Envelope,
  REPLY_LIMITS,
} from '../src/index.js';
import { frame } from './helpers.js';

/** The most a reply can weigh: its lists' budget, the marker, and five frame fields of 256 characters. */
const MAX_REPLY_BYTES = REPLY_LIMITS.maxBytes + 8 * 1024;

const intents = defineIntents({
  report: { direction: 'any', payload: z.object({ values: z.array(z.string()) }) },
  form: {
    direction: 'any',
    payload: z.strictObject({ name: z.string(), fields: z.record(z.string(), z.string()) }),
  },
  fields: {
    direction: 'any',
    payload: z.object(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, z.string()]))),
  },
  deliver: {
    direction: 'any',
    payload: defineArtifacts({
      'Brief.json': z.object({ artifact: z.literal('Brief.json'), thesis: z.string() }),
    }),
  },
});

function codec(): Codec<typeof intents> {
  return createCodec(intents, { clock: createManualClock(), generateId: createSequentialIds('env_') });
}

function bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Decodes `text`, expects `invalid_payload` with a reply, and returns the refusal and the reply's text. */
function refuse(text: string) {
  const c = codec();
  const result = c.decode(text);
  if (result.ok || result.code !== 'invalid_payload' || result.reply === undefined) {
    throw new Error(`expected invalid_payload with a reply, got ${result.ok ? 'ok' : result.code}`);
  }
  return { refusal: result, reply: result.reply, text: c.encode(result.reply), codec: c };
}

describe('the missing_fields reply', () => {
  it('[BOUND-1] answers 45 000 wrong-typed numbers (100 KB) with a reply under the limits that decodes', () => {
    const input = frame('report', { values: Array(45_000).fill(1) });
    expect(bytes(input)).toBeLessThan(100 * 1024);
    const { refusal, reply, text, codec: c } = refuse(input);
    expect(bytes(text)).toBeLessThanOrEqual(MAX_REPLY_BYTES); // was 3.77 MB
    const decoded = c.decode(text);
    expect(decoded.ok && decoded.value.intent).toBe('missing_fields');
    expect(reply.payload.issues).toHaveLength(REPLY_LIMITS.maxIssues + 1);
    expect(reply.payload.omitted).toEqual({ issues: 45_000 - REPLY_LIMITS.maxIssues, missing_fields: 0 });
    expect(reply.payload.issues.at(-1)).toEqual({
      path: '',
      message: 'and 44950 more issues, 0 more missing fields not listed',
    });
    expect(refusal.issues).toHaveLength(REPLY_LIMITS.maxIssues);
    expect(refusal.omitted).toEqual({ issues: 44_950, missingFields: 0 });
  });

  it('[BOUND-2] lists exactly maxIssues issues without a marker, and one more with "and 1 more"', () => {
    const at = refuse(frame('report', { values: Array(REPLY_LIMITS.maxIssues).fill(1) }));
    expect(at.reply.payload.issues).toHaveLength(REPLY_LIMITS.maxIssues);
    expect(at.reply.payload.omitted).toBeUndefined();
    expect(at.refusal.omitted).toBeUndefined();
    const over = refuse(frame('report', { values: Array(REPLY_LIMITS.maxIssues + 1).fill(1) }));
    expect(over.reply.payload.issues).toHaveLength(REPLY_LIMITS.maxIssues + 1);
    expect(over.reply.payload.issues.at(-1)?.message).toBe(
      'and 1 more issues, 0 more missing fields not listed',
    );
    expect(over.reply.payload.omitted).toEqual({ issues: 1, missing_fields: 0 });
  });

  it('[BOUND-2] caps missing fields at maxMissingFields and counts the rest', () => {
    const { reply, refusal } = refuse(frame('fields', {}));
    expect(reply.payload.missing_fields).toHaveLength(REPLY_LIMITS.maxMissingFields);
    expect(reply.payload.missing_fields.slice(0, 2)).toEqual(['f0', 'f1']);
    expect(reply.payload.omitted).toEqual({ issues: 10, missing_fields: 10 });
    expect(refusal.missingFields).toHaveLength(REPLY_LIMITS.maxMissingFields);
    expect(refusal.omitted).toEqual({ issues: 10, missingFields: 10 });
  });

  it('[BOUND-3] cuts echoed keys and messages to maxTextLength, keeping surrogate pairs whole', () => {
    const long = `${'k'.repeat(REPLY_LIMITS.maxTextLength - 2)}😀${'x'.repeat(100_000)}`;
    const { reply, text, codec: c } = refuse(frame('form', { name: 'n', fields: {}, [long]: 1 }));
    for (const issue of reply.payload.issues) {
      expect(issue.path.length).toBeLessThanOrEqual(REPLY_LIMITS.maxTextLength);
      expect(issue.message.length).toBeLessThanOrEqual(REPLY_LIMITS.maxTextLength);
      expect(issue.message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    }
    expect(reply.payload.issues[0]?.message.endsWith('…')).toBe(true);
    expect(c.decode(text).ok).toBe(true);
  });

  it('[BOUND-3] stops at the byte budget before the count when every text is long and wide', () => {
    const wide = '确'.repeat(300);
    const values = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`${wide}${i}`, 1]));
    const { reply, text } = refuse(frame('form', { name: 'n', fields: values }));
    expect(reply.payload.issues.length).toBeLessThan(REPLY_LIMITS.maxIssues);
    expect(reply.payload.omitted?.issues).toBe(60 - (reply.payload.issues.length - 1));
    expect(bytes(text)).toBeLessThanOrEqual(MAX_REPLY_BYTES);
  });

  const text = (maxLength: number) => fc.string({ unit: 'binary', maxLength, size: 'large' });
  const failure = fc.record({
    missingFields: fc.array(text(600), { maxLength: 300, size: 'large' }),
    issues: fc.array(fc.record({ pathText: text(600), message: text(600) }), {
      maxLength: 300,
      size: 'large',
    }),
  });
  const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 400, size: 'large' });

  test.prop([failure, name, name], { numRuns: 25 })(
    '[BOUND-4] builds, from any failure, a reply that decodes under the default limits',
    (given, from, ref) => {
      const refused: Envelope = {
        id: ref,
        from,
        to: 'lead',
        intent: 'report',
        ref_task: ref,
        payload: {},
        expect_response: false,
        sent_at: 0,
        spawn_depth: 0,
      };
      const c = codec();
      const reply = createMissingFieldsReply(refused, given);
      const encoded = c.encode(reply);
      expect(bytes(encoded)).toBeLessThanOrEqual(MAX_REPLY_BYTES);
      expect(c.decode(encoded).ok).toBe(true);
      const kept = reply.payload.issues.length - (reply.payload.omitted === undefined ? 0 : 1);
      expect(kept + (reply.payload.omitted?.issues ?? 0)).toBe(given.issues.length);
    },
  );

  /** A payload for one of the intents: any JSON, repeated up to 40 000 times under a key of any length. */
  const payload = fc
    .tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat({ max: 40_000 }), text(2_000))
    .map(([value, times, key]) => ({
      values: Array(times).fill(value),
      fields: { [key]: value },
      [key]: value,
    }));

  test.prop([payload, fc.constantFrom('report', 'form', 'fields', 'deliver')], { numRuns: 40 })(
    '[BOUND-4] answers any payload with a reply that decodes under the default limits',
    (value, intent) => {
      const c = codec();
      const result = c.decode(frame(intent, value));
      if (result.ok || result.code !== 'invalid_payload' || result.reply === undefined) return;
      const encoded = c.encode(result.reply);
      expect(bytes(encoded)).toBeLessThanOrEqual(MAX_REPLY_BYTES);
      expect(c.decode(encoded).ok).toBe(true);
    },
  );

  it('refuses a received missing_fields reply whose omitted counts are malformed', () => {
    const c = codec();
    const reply = (omitted: unknown): string =>
      frame(
        'missing_fields',
        { intent: 'report', missing_fields: [], issues: [], omitted },
        { in_reply_to: 'e0' },
      );
    expect(c.decode(reply({ issues: 3, missing_fields: 0 })).ok).toBe(true);
    for (const bad of [
      null,
      3,
      { issues: -1, missing_fields: 0 },
      { issues: 1 },
      { issues: 1.5, missing_fields: 0 },
    ]) {
      expect(c.decode(reply(bad))).toMatchObject({
        ok: false,
        code: 'invalid_payload',
        issues: [{ pathText: 'omitted' }],
      });
    }
  });
});

describe('refusals echo bounded values', () => {
  it('[BOUND-5] refuses 40 000 unknown frame fields with at most maxIssues issues and a short message', () => {
    const extra = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`x${i}`, 0]));
    extra['y'.repeat(300_000)] = 0;
    const result = codec().decode(frame('report', { values: [] }, extra));
    if (result.ok || result.code !== 'invalid_envelope') throw new Error('expected invalid_envelope');
    expect(result.issues).toHaveLength(REPLY_LIMITS.maxIssues);
    expect(result.omitted).toEqual({ issues: 40_001 - REPLY_LIMITS.maxIssues, missingFields: 0 });
    expect(result.message.length).toBeLessThan(1_000);
    expect(result.message.endsWith(`; and ${40_001 - 10} more`)).toBe(true);
  });

  it('[BOUND-6] cuts an unknown artifact name of 500 000 characters in the refusal', () => {
    const result = codec().decode(frame('deliver', { artifact: 'A'.repeat(500_000), thesis: 't' }));
    if (result.ok || result.code !== 'unknown_artifact') throw new Error('expected unknown_artifact');
    expect(result.artifact?.length).toBe(REPLY_LIMITS.maxTextLength);
    expect(result.message.length).toBeLessThan(2 * REPLY_LIMITS.maxTextLength);
  });

  it('[BOUND-6] cuts the path of a forbidden key under a long key', () => {
    const text = `{"payload":{"${'p'.repeat(300_000)}":{"__proto__":1}}}`;
    const result = codec().decode(text);
    expect(result).toMatchObject({ ok: false, code: 'json_forbidden_key' });
    expect(!result.ok && 'path' in result && (result.path?.length ?? 0)).toBeLessThanOrEqual(
      REPLY_LIMITS.maxTextLength,
    );
  });

  it('[BOUND-7] cuts ids echoed by a topology refusal', () => {
    const topology = createTopology();
    topology.register({ id: 'ceo' });
    const huge = 'z'.repeat(1_000_000);
    const result = topology.check({ from: huge, to: 'ceo', expect_response: false, spawn_depth: 0 });
    expect(result).toMatchObject({ ok: false, code: 'unknown_agent' });
    if (result.ok) return;
    expect(result.message.length).toBeLessThanOrEqual(4 * REPLY_LIMITS.maxTextLength);
    expect((result.details.from as string).length).toBe(REPLY_LIMITS.maxTextLength);
    const spawn = topology.spawn({ parent: huge, id: 'kid' });
    expect(!spawn.ok && (spawn.details.parent as string).length).toBe(REPLY_LIMITS.maxTextLength);
  });
});

// Time linear in the input is measured by `npm run bench` (bench/cases/growth.bench.ts, the codec
// against JSON.parse and the schema on the same text); here the work is counted.
describe('the cost of refusing', () => {
  it('[BOUND-8] reads each issue a schema reports a bounded number of times, however many there are', () => {
    const reads = (count: number): number => {
      let n = 0;
      const counted = <T extends object>(target: T): T =>
        new Proxy(target, {
          get(object, key, receiver) {
            n++;
            return Reflect.get(object, key, receiver);
          },
        });
      const issues = counted(
        Array.from({ length: count }, (_, i) => counted({ message: 'Expected a string', path: [i] })),
      );
      const schema = { '~standard': { version: 1, vendor: 'count', validate: () => ({ issues }) } } as const;
      const counting = defineIntents({ any: { direction: 'any', payload: schema } });
      const c = createCodec(counting, {
        clock: createManualClock(),
        generateId: createSequentialIds('env_'),
      });
      const result = c.decode(frame('any', Array(count).fill(1)));
      expect(result).toMatchObject({ ok: false, code: 'invalid_payload' });
      if (!result.ok && result.code === 'invalid_payload' && result.reply !== undefined)
        c.encode(result.reply);
      return n;
    };
    const [one, eight] = [reads(5_000), reads(40_000)];
    expect(eight).toBeLessThanOrEqual(8 * one);
    expect(eight / 40_000).toBeLessThan(20); // a handful of reads per issue
  });
});
