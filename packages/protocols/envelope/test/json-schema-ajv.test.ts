// The JSON Schema exports checked against the consumer that reads them: ajv (draft 2020-12 and
// draft-07). A schema ajv cannot compile, or one that accepts what the codec refuses (or the other
// way round), is a broken export.
import { fc, test } from '@fast-check/vitest';
import type { Envelope } from '../src/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { default as addFormats } from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createCodec,
  defineAgentIntents,
  defineArtifacts,
  defineIntents,
  toEnvelopeJsonSchema,
  toIntentJsonSchemas,
} from '../src/index.js';

type Tree = { name: string; children: Tree[] };
const TreeNode: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(TreeNode) }));
const Address = z.object({ city: z.string() }).meta({ id: 'Address' });
type Chain = { next?: Chain | undefined; n: number };
const Chain: z.ZodType<Chain> = z.object({ n: z.number(), next: z.lazy(() => Chain).optional() });

const intents = defineIntents({
  tree: { direction: 'any', payload: z.object({ root: TreeNode }), description: 'A tree' },
  move: { direction: 'any', payload: z.object({ home: Address, work: Address }) },
  chain: { direction: 'any', payload: Chain, description: 'A chain' },
});

function envelope(intent: string, payload: unknown): Envelope {
  return {
    id: 'env_1',
    from: 'a',
    to: 'b',
    intent,
    payload,
    expect_response: false,
    sent_at: 1,
    spawn_depth: 0,
  };
}

const deep: Tree = { name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [] }] }] };
const badDeep = { name: 'a', children: [{ name: 'b', children: [{ name: 3, children: [] }] }] };

describe('toEnvelopeJsonSchema read by ajv', () => {
  it('compiles payloads with recursive and id-named definitions, and validates through them', () => {
    const ajv = new Ajv2020({ strict: false });
    const tree = ajv.compile(toEnvelopeJsonSchema(intents, 'tree'));
    expect(tree(envelope('tree', { root: deep }))).toBe(true);
    expect(tree(envelope('tree', { root: badDeep }))).toBe(false);
    const move = ajv.compile(toEnvelopeJsonSchema(intents, 'move'));
    expect(move(envelope('move', { home: { city: 'Oslo' }, work: { city: 'Bergen' } }))).toBe(true);
    expect(move(envelope('move', { home: { city: 'Oslo' }, work: {} }))).toBe(false);
  });

  it('points a payload that refers to itself at the payload, not at the envelope', () => {
    const ajv = new Ajv2020({ strict: false });
    const chain = ajv.compile(toEnvelopeJsonSchema(intents, 'chain'));
    expect(chain(envelope('chain', { n: 1, next: { n: 2, next: { n: 3 } } }))).toBe(true);
    expect(chain(envelope('chain', { n: 1, next: { n: 'two' } }))).toBe(false);
    const payload = (toEnvelopeJsonSchema(intents, 'chain').properties as Record<string, unknown>).payload;
    expect(payload).toEqual({ $ref: '#/$defs/payload', description: 'A chain' });
  });

  it('keeps draft-07 definitions under draft-07’s keyword', () => {
    const ajv = new Ajv({ strict: false });
    const schema = toEnvelopeJsonSchema(intents, 'tree', { target: 'draft-07' });
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const tree = ajv.compile(schema);
    expect(tree(envelope('tree', { root: deep }))).toBe(true);
    expect(tree(envelope('tree', { root: badDeep }))).toBe(false);
  });

  it('leaves a payload without definitions inline, with its description', () => {
    const plain = defineIntents({ notify: { direction: 'any', payload: z.object({ m: z.string() }) } });
    const schema = toEnvelopeJsonSchema(plain, 'notify');
    expect(schema.$defs).toBeUndefined();
    expect((schema.properties as Record<string, unknown>).payload).toMatchObject({ type: 'object' });
    const tree = (toEnvelopeJsonSchema(intents, 'tree').properties as Record<string, unknown>).payload;
    expect(tree).toMatchObject({ description: 'A tree' });
  });

  it('keeps string formats that ajv-formats checks', () => {
    const contact = defineIntents({ contact: { direction: 'any', payload: z.object({ email: z.email() }) } });
    const check = addFormats(new Ajv2020({ strict: false })).compile(
      toEnvelopeJsonSchema(contact, 'contact'),
    );
    expect(check(envelope('contact', { email: 'ops@example.com' }))).toBe(true);
    expect(check(envelope('contact', { email: 'not an email' }))).toBe(false);
  });

  it('exports every intent on its own as a document ajv compiles', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas = toIntentJsonSchemas(intents);
    expect(ajv.compile(schemas.tree)({ root: deep })).toBe(true);
    expect(ajv.compile(schemas.chain)({ n: 1, next: { n: 'x' } })).toBe(false);
  });
});

// Two artifacts of the same shape, as the seed's bullish and bearish briefs.
const Brief = z.object({ thesis: z.string(), confidence: z.number().min(0).max(1) });
const REPORTS = { 'Bullish_Brief.json': Brief, 'Bearish_Brief.json': Brief, 'Notes.v2.md': z.object({}) };

describe('deliver_report with reports, read by ajv', () => {
  const pipeline = defineAgentIntents({ reports: REPORTS });
  const codec = createCodec(pipeline);
  const validate = new Ajv2020({ strict: false }).compile(toEnvelopeJsonSchema(pipeline, 'deliver_report'));
  const report = (payload: unknown): Envelope => ({
    ...envelope('deliver_report', payload),
    from: 'c',
    to: 'p',
  });

  it('accepts a brief that fits two artifacts of the same shape once its artifact field names one', () => {
    const env = report({ artifact: 'Bearish_Brief.json', thesis: 'lower high', confidence: 0.7 });
    expect(codec.decode(JSON.stringify(env)).ok).toBe(true);
    expect(validate(env)).toBe(true);
  });

  it('describes the artifact field the codec picks the schema by', () => {
    const missing = report({ thesis: 'x', confidence: 0.5 });
    const unknown = report({ artifact: 'Sideways_Brief.json', thesis: 'x', confidence: 0.5 });
    for (const env of [missing, unknown]) {
      expect(codec.decode(JSON.stringify(env))).toMatchObject({ ok: false, code: 'unknown_artifact' });
      expect(validate(env)).toBe(false);
    }
  });

  const artifactName = fc.constantFrom(
    'Bullish_Brief.json',
    'Bullish_Brief',
    'Bearish_Brief.txt',
    'Bearish_Brief.',
    'Bearish_Brief.json.bak',
    'bullish_brief',
    'Notes.v2',
    'Notes.v2.md',
    'Notes',
    'Notes.v3',
    '',
    '.json',
  );
  const payload = fc.record(
    {
      artifact: fc.oneof(artifactName, fc.integer(), fc.constant(null)),
      thesis: fc.oneof(fc.string(), fc.integer()),
      confidence: fc.oneof(fc.double({ noNaN: true, min: -1, max: 2 }), fc.string()),
    },
    { requiredKeys: [] },
  );

  test.prop([payload], { numRuns: 300 })('ajv accepts exactly the reports the codec accepts', (p) => {
    const env = report(p);
    expect(validate(env)).toBe(codec.decode(JSON.stringify(env)).ok);
  });

  it('escapes artifact names that hold regular-expression characters', () => {
    const odd = defineAgentIntents({ reports: { 'a+b(1).json': z.object({}) } });
    const check = new Ajv2020({ strict: false }).compile(toEnvelopeJsonSchema(odd, 'deliver_report'));
    const oddCodec = createCodec(odd);
    for (const name of ['a+b(1)', 'a+b(1).md', 'aab(1)', 'a+b1']) {
      const env = report({ artifact: name });
      expect(check(env)).toBe(oddCodec.decode(JSON.stringify(env)).ok);
    }
  });

  it('describes what an artifact set returns as a union of the artifacts, without the field', () => {
    const set = defineArtifacts({ 'A.json': z.object({ a: z.string() }), 'B.json': Chain });
    const output = set['~standard'] as unknown as {
      jsonSchema: { output: (o: { target: string }) => Record<string, unknown> };
    };
    const schema = output.jsonSchema.output({ target: 'draft-2020-12' });
    const check = new Ajv2020({ strict: false }).compile(schema);
    expect(check({ a: 'x' })).toBe(true);
    expect(check({ n: 1, next: { n: 2 } })).toBe(true);
    expect(check({ a: 1 })).toBe(false);
    expect(check({ n: 1, next: { n: '2' } })).toBe(false);
  });
});

/** A Standard Schema that describes itself with a fixed JSON Schema document (no `$schema`). */
function described(document: Record<string, unknown>, accept: (v: unknown) => boolean) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'by-hand',
      validate: (value: unknown) => (accept(value) ? { value } : { issues: [{ message: 'no' }] }),
      jsonSchema: { input: () => document, output: () => document },
    },
  };
}

describe('payload documents written by hand', () => {
  // `$ref` is a property name here, `const` holds data that looks like a reference, and a pointer
  // reaches into the document's own properties.
  const document = {
    type: 'object',
    properties: {
      $ref: { type: 'string' },
      kind: { const: { $ref: '#/not/a/reference' } },
      copy: { $ref: '#/properties/%24ref' },
      also: { $ref: '#/$defs/a~1b' },
    },
    $defs: { 'a/b': { type: 'integer' } },
  };
  const schema = described(document, () => true);

  it('rewrites pointers into the document and leaves data and property names alone', () => {
    const registry = defineIntents({ odd: { direction: 'any', payload: schema } });
    const exported = toEnvelopeJsonSchema(registry, 'odd');
    expect(exported.$schema).toBeUndefined();
    const check = new Ajv2020({ strict: false }).compile(exported);
    const payload = { $ref: 'x', kind: { $ref: '#/not/a/reference' }, copy: 'y', also: 3 };
    expect(check(envelope('odd', payload))).toBe(true);
    expect(check(envelope('odd', { ...payload, copy: 1 }))).toBe(false);
    expect(check(envelope('odd', { ...payload, also: 'three' }))).toBe(false);
  });

  it('keeps an artifact set without definitions or $schema free of both', () => {
    const set = defineArtifacts({ 'A.json': described({ type: 'object' }, () => true) });
    const json = (set['~standard'] as unknown as { jsonSchema: { input: (o: object) => object } }).jsonSchema;
    expect(json.input({ target: 'draft-2020-12' })).toEqual({
      anyOf: [
        {
          title: 'A.json',
          allOf: [
            {
              type: 'object',
              required: ['artifact'],
              properties: { artifact: { type: 'string', pattern: '^A(\\.[^.]*)?$' } },
            },
            { type: 'object' },
          ],
        },
      ],
    });
  });
});
