import { createManualClock, createSequentialIds, isParleyError, toJsonSchema } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createCodec,
  createTopology,
  defineAgentIntents,
  defineArtifacts,
  defineIntents,
  type Envelope,
  isArtifactSet,
  parseEnvelope,
} from '../src/index.js';
import { brief, FinanceResearchBrief } from './helpers.js';

const BullishBrief = z.object({ thesis: z.string(), invalidation: z.string() });
const BearishBrief = z.object({ risk: z.string() });
const REPORTS = {
  'Finance_Research_Brief.json': FinanceResearchBrief,
  'Bullish_Brief.json': BullishBrief,
  'Bearish_Brief.json': BearishBrief,
} as const;

function pipeline(artifacts: Map<string, unknown> = new Map()) {
  const intents = defineAgentIntents({ reports: REPORTS, roles: { escalation: 'ceo_coo' } });
  const codec = createCodec(intents, {
    clock: createManualClock({ now: 5 }),
    generateId: createSequentialIds('env_'),
    resolveRef: (ref) => artifacts.get(ref),
  });
  return { intents, codec, artifacts };
}

function frame(payload: unknown, intent = 'deliver_report'): string {
  const envelope: Envelope = {
    id: 'env_9',
    from: 'bull',
    to: 'lead',
    intent,
    payload,
    expect_response: false,
    sent_at: 0,
    spawn_depth: 1,
  };
  return JSON.stringify(envelope);
}

describe('defineAgentIntents({ reports })', () => {
  it('validates a referenced report with the schema its $ref names', () => {
    const { codec, artifacts } = pipeline();
    artifacts.set('Bullish_Brief.json', { thesis: 'higher low', invalidation: '< 60k' });
    artifacts.set('Finance_Research_Brief.json', brief);
    const bull = codec.decode(frame({ $ref: 'Bullish_Brief.json' }));
    const finance = codec.decode(frame({ $ref: 'Finance_Research_Brief.json' }));
    expect(bull).toMatchObject({ ok: true, ref: 'Bullish_Brief.json', artifact: 'Bullish_Brief.json' });
    expect(bull.ok && bull.value.payload).toEqual({ thesis: 'higher low', invalidation: '< 60k' });
    expect(finance).toMatchObject({ ok: true, artifact: 'Finance_Research_Brief.json' });
  });

  it('refuses a referenced report that fails its own artifact schema, naming the artifact', () => {
    const { codec, artifacts } = pipeline();
    artifacts.set('Bullish_Brief.json', { thesis: 'higher low' });
    const result = codec.decode(frame({ $ref: 'Bullish_Brief.json' }));
    expect(result.ok).toBe(false);
    if (result.ok || result.code !== 'invalid_payload') throw new Error('expected invalid_payload');
    expect(result.missingFields).toEqual(['invalidation']);
    expect(result.artifact).toBe('Bullish_Brief.json');
    expect(result.ref).toBe('Bullish_Brief.json');
    expect(result.reply?.payload.missing_fields).toEqual(['invalidation']);
  });

  it('does not accept content valid for another artifact under the wrong $ref', () => {
    const { codec, artifacts } = pipeline();
    artifacts.set('Bullish_Brief.json', { risk: 'lower high' }); // a bearish brief filed as bullish
    const result = codec.decode(frame({ $ref: 'Bullish_Brief.json' }));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.code).toBe('invalid_payload');
  });

  it('matches an artifact name with or without its extension', () => {
    const { codec, artifacts } = pipeline();
    artifacts.set('Bearish_Brief', { risk: 'lower high' });
    const byStem = codec.decode(frame({ $ref: 'Bearish_Brief' }));
    expect(byStem).toMatchObject({ ok: true, ref: 'Bearish_Brief', artifact: 'Bearish_Brief.json' });
    const inline = codec.decode(frame({ artifact: 'Bearish_Brief', risk: 'lower high' }));
    expect(inline).toMatchObject({ ok: true, artifact: 'Bearish_Brief.json' });
    expect(inline.ok && 'ref' in inline).toBe(false);
  });

  it('chooses an inline report by its artifact field', () => {
    const { codec } = pipeline();
    const result = codec.decode(frame({ artifact: 'Bullish_Brief.json', thesis: 't', invalidation: 'i' }));
    expect(result).toMatchObject({ ok: true, artifact: 'Bullish_Brief.json' });
  });

  it('refuses a $ref naming no known artifact with unknown_artifact, before validating', () => {
    const { codec, artifacts } = pipeline();
    artifacts.set('Pipeline_Summary.json', { thesis: 't', invalidation: 'i' });
    const result = codec.decode(frame({ $ref: 'Pipeline_Summary.json' }));
    expect(result).toMatchObject({
      ok: false,
      code: 'unknown_artifact',
      artifact: 'Pipeline_Summary.json',
      known: Object.keys(REPORTS),
    });
    expect(!result.ok && 'reply' in result).toBe(false);
  });

  it('refuses an inline report without an artifact field or with an unknown one', () => {
    const { codec } = pipeline();
    const none = codec.decode(frame({ thesis: 't', invalidation: 'i' }));
    expect(none).toMatchObject({ ok: false, code: 'unknown_artifact' });
    expect(!none.ok && 'artifact' in none).toBe(false);
    const wrong = codec.decode(frame({ artifact: 'Nope.json' }));
    expect(wrong).toMatchObject({ ok: false, code: 'unknown_artifact', artifact: 'Nope.json' });
    const typed = codec.decode(frame({ artifact: 7 }));
    expect(typed).toMatchObject({ ok: false, code: 'unknown_artifact' });
  });

  it('refuses unknown_artifact through decodeAsync and parseEnvelope too', async () => {
    const { codec, intents } = pipeline();
    await expect(codec.decodeAsync(frame({ artifact: 'Nope.json' }))).resolves.toMatchObject({
      code: 'unknown_artifact',
    });
    try {
      parseEnvelope(intents, frame({ artifact: 'Nope.json' }));
      expect.unreachable();
    } catch (error) {
      expect(isParleyError(error, 'unknown_artifact')).toBe(true);
    }
  });

  it('resolves, picks and validates with decodeAsync and an async resolver', async () => {
    const { codec } = pipeline();
    const asyncCodec = createCodec(codec.intents, {
      resolveRef: async (ref) => (ref === 'Bearish_Brief.json' ? { risk: 'r' } : undefined),
    });
    const result = await asyncCodec.decodeAsync(frame({ $ref: 'Bearish_Brief.json' }));
    expect(result).toMatchObject({ ok: true, ref: 'Bearish_Brief.json', artifact: 'Bearish_Brief.json' });
  });

  it('checks inline reports when authoring, refusing an unknown artifact with unknown_artifact', () => {
    const { codec } = pipeline();
    const ok = codec.create('deliver_report', {
      from: 'bear',
      to: 'lead',
      payload: { artifact: 'Bearish_Brief.json', risk: 'r' } as never,
    });
    expect(ok.intent).toBe('deliver_report');
    try {
      codec.create('deliver_report', {
        from: 'bear',
        to: 'lead',
        payload: { artifact: 'X', risk: 'r' } as never,
      });
      expect.unreachable();
    } catch (error) {
      expect(isParleyError(error, 'unknown_artifact')).toBe(true);
      expect((error as { details: { artifact: unknown } }).details.artifact).toBe('X');
    }
    expect(() =>
      codec.create('deliver_report', {
        from: 'bear',
        to: 'lead',
        payload: { artifact: 'Bearish_Brief' } as never,
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_payload' }));
  });

  it('keeps the other seven intents as they were', () => {
    const { intents } = pipeline();
    expect(intents.names).toHaveLength(8);
    expect(intents.get('escalate').payload.safeParse({ reason: 'blocked' }).success).toBe(true);
    expect(isArtifactSet(intents.get('deliver_report').payload)).toBe(true);
    expect(isArtifactSet(intents.get('escalate').payload)).toBe(false);
  });

  it('refuses report and reports together, and honours reportField', () => {
    expect(() => defineAgentIntents({ report: BullishBrief, reports: REPORTS } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_definition' }),
    );
    const intents = defineAgentIntents({ reports: REPORTS, reportField: 'kind' });
    const codec = createCodec(intents);
    expect(codec.decode(frame({ kind: 'Bearish_Brief.json', risk: 'r' }))).toMatchObject({ ok: true });
    expect(codec.decode(frame({ artifact: 'Bearish_Brief.json', risk: 'r' }))).toMatchObject({
      code: 'unknown_artifact',
    });
  });

  it('keeps the $ref name on a decode of an ordinary intent too', () => {
    const intents = defineIntents({ deliver_report: { direction: 'any', payload: BullishBrief } });
    const codec = createCodec(intents, { resolveRef: () => ({ thesis: 't', invalidation: 'i' }) });
    const result = codec.decode(frame({ $ref: 'Bullish_Brief.json' }));
    expect(result).toMatchObject({ ok: true, ref: 'Bullish_Brief.json' });
    expect(result.ok && 'artifact' in result).toBe(false);
    expect(result.ok && result.value.payload).toEqual({ thesis: 't', invalidation: 'i' });
    const inline = codec.decode(frame({ thesis: 't', invalidation: 'i' }));
    expect(inline.ok && 'ref' in inline).toBe(false);
  });

  it('works with a directory like any intent set', () => {
    const topology = createTopology();
    topology.register({ id: 'lead' });
    const bull = topology.spawn({ parent: 'lead', id: 'bull' });
    expect(bull.ok).toBe(true);
    const codec = createCodec(defineAgentIntents({ reports: REPORTS }), {
      directory: topology,
      resolveRef: () => ({ risk: 'r' }),
    });
    expect(codec.decode(frame({ $ref: 'Bearish_Brief.json' }))).toMatchObject({ ok: true });
  });
});

describe('defineArtifacts', () => {
  it('is a Standard Schema choosing by the artifact field', () => {
    const set = defineArtifacts(REPORTS);
    const ok = set['~standard'].validate({ artifact: 'Bearish_Brief', risk: 'r' });
    expect(ok).toEqual({ value: { risk: 'r' } }); // the chosen zod object strips the field it does not declare
    const missing = set['~standard'].validate({ risk: 'r' });
    expect(missing).toMatchObject({
      issues: [{ path: ['artifact'], message: expect.stringMatching(/^Required/) }],
    });
    const unknown = set['~standard'].validate({ artifact: 'Nope' });
    expect(unknown).toMatchObject({
      issues: [{ message: expect.stringContaining('Unknown artifact "Nope"') }],
    });
    expect(set['~standard'].validate('text')).toMatchObject({ issues: [{ path: ['artifact'] }] });
  });

  it('selects by name and by payload, and lists its names and field', () => {
    const set = defineArtifacts(REPORTS, { field: 'kind' });
    expect(set.names).toEqual(Object.keys(REPORTS));
    expect(set.field).toBe('kind');
    expect(set.select('Bullish_Brief')?.artifact).toBe('Bullish_Brief.json');
    expect(set.select('Bullish_Brief.md')?.artifact).toBe('Bullish_Brief.json');
    expect(set.select('Other')).toBeUndefined();
    expect(set.selectFor({ kind: 'Bearish_Brief.json' })?.schema).toBe(BearishBrief);
    expect(set.selectFor({ artifact: 'Bearish_Brief.json' })).toBeUndefined();
    expect(set.selectFor(null)).toBeUndefined();
    expect(Object.isFrozen(set) && Object.isFrozen(set.artifacts)).toBe(true);
  });

  it('exports JSON Schema as an anyOf of its artifacts, each naming itself in the artifact field', () => {
    const set = defineArtifacts({
      'A.json': z.object({ a: z.string() }),
      'B.json': z.object({ b: z.number() }),
    });
    const schema = toJsonSchema(set);
    expect(schema.oneOf).toBeUndefined();
    expect(schema.anyOf).toMatchObject([
      {
        title: 'A.json',
        allOf: [{ required: ['artifact'], properties: { artifact: { pattern: '^A(\\.[^.]*)?$' } } }, {}],
      },
      { title: 'B.json' },
    ]);
    expect(toJsonSchema(set, { io: 'output', target: 'draft-07' }).anyOf).toHaveLength(2);
  });

  it('refuses malformed definitions with invalid_definition', () => {
    const bad: unknown[] = [
      () => defineArtifacts({}),
      () => defineArtifacts(null as never),
      () => defineArtifacts([] as never),
      () => defineArtifacts({ '': BullishBrief }),
      () => defineArtifacts({ 'A.json': {} as never }),
      () => defineArtifacts({ 'A.json': BullishBrief, 'A.md': BearishBrief }),
      () => defineArtifacts({ 'A.json': BullishBrief }, { field: '' }),
    ];
    for (const make of bad) {
      expect(make as () => unknown).toThrow(expect.objectContaining({ code: 'invalid_definition' }));
    }
  });

  it('tells artifact sets from other values', () => {
    expect(isArtifactSet(defineArtifacts(REPORTS))).toBe(true);
    expect(isArtifactSet(BullishBrief)).toBe(false);
    expect(isArtifactSet(null)).toBe(false);
  });
});
