import { describe, expectTypeOf, it } from 'vitest';
import type { InferOutput } from '@parley/core';
import { z } from 'zod';
import {
  createCodec,
  createEnvelope,
  type DecodeResult,
  defineAgentIntents,
  defineArtifacts,
  type ArtifactSet,
  defineIntents,
  type Envelope,
  type EnvelopeOf,
  type IntentNameOf,
  type IntentRegistry,
  type MissingFieldsPayload,
  type PayloadInputOf,
  type PayloadOf,
  type PayloadRef,
} from '../src/index.js';

const intents = defineIntents({
  deliver_report: { direction: 'up', payload: z.object({ thesis: z.string(), confidence: z.number() }) },
  notify: { direction: 'any', payload: z.object({ count: z.string().transform((s) => s.length) }) },
});

describe('registry types', () => {
  it('infers intent names and payload types from the schemas', () => {
    expectTypeOf<IntentNameOf<typeof intents>>().toEqualTypeOf<'deliver_report' | 'notify'>();
    expectTypeOf<PayloadOf<typeof intents, 'deliver_report'>>().toEqualTypeOf<{
      thesis: string;
      confidence: number;
    }>();
    expectTypeOf<PayloadOf<typeof intents, 'notify'>>().toEqualTypeOf<{ count: number }>();
    expectTypeOf<PayloadInputOf<typeof intents, 'notify'>>().toEqualTypeOf<{ count: string }>();
  });

  it('is assignable to the general registry type', () => {
    expectTypeOf(intents).toMatchTypeOf<IntentRegistry>();
  });
});

describe('createEnvelope and codec.create', () => {
  it('types the payload by the intent schema', () => {
    const envelope = createEnvelope(intents, 'deliver_report', {
      from: 'a',
      to: 'b',
      payload: { thesis: 'up', confidence: 0.6 },
    });
    expectTypeOf(envelope.intent).toEqualTypeOf<'deliver_report'>();
    expectTypeOf(envelope.payload).toEqualTypeOf<{ thesis: string; confidence: number } | PayloadRef>();
    const codec = createCodec(intents);
    codec.create('notify', { from: 'a', to: 'b', payload: { count: 'abc' } });
    codec.create('deliver_report', { from: 'a', to: 'b', payload: { $ref: 'Brief.json' } });
  });

  it('rejects a wrong payload, a missing field and an unknown intent at compile time', () => {
    const codec = createCodec(intents);
    // @ts-expect-error: confidence must be a number
    codec.create('deliver_report', { from: 'a', to: 'b', payload: { thesis: 'up', confidence: 'high' } });
    // @ts-expect-error: confidence is required
    createEnvelope(intents, 'deliver_report', { from: 'a', to: 'b', payload: { thesis: 'up' } });
    // @ts-expect-error: no such intent
    codec.create('wipe_disk', { from: 'a', to: 'b', payload: {} });
    // @ts-expect-error: the notify payload takes the schema input (a string), not its output
    codec.create('notify', { from: 'a', to: 'b', payload: { count: 3 } });
  });
});

describe('decode results', () => {
  it('narrows the payload on the intent, including the missing_fields reply', () => {
    const result = createCodec(intents).decode('{}');
    expectTypeOf(result).toEqualTypeOf<DecodeResult<typeof intents>>();
    if (result.ok) {
      const envelope = result.value;
      if (envelope.intent === 'deliver_report')
        expectTypeOf(envelope.payload.confidence).toEqualTypeOf<number>();
      else if (envelope.intent === 'notify') expectTypeOf(envelope.payload.count).toEqualTypeOf<number>();
      else expectTypeOf(envelope.payload).toEqualTypeOf<MissingFieldsPayload>();
    } else if (result.code === 'invalid_payload') {
      expectTypeOf(result.missingFields).toEqualTypeOf<readonly string[]>();
      expectTypeOf(result.envelope).toEqualTypeOf<Envelope>();
    }
  });

  it('gives EnvelopeOf one intent a precise type', () => {
    expectTypeOf<EnvelopeOf<typeof intents, 'deliver_report'>>().toEqualTypeOf<
      Envelope<'deliver_report', { thesis: string; confidence: number }>
    >();
  });
});

describe('defineAgentIntents types', () => {
  it('carries the report schema into deliver_report', () => {
    const agents = defineAgentIntents({ report: z.object({ thesis: z.string() }) });
    expectTypeOf<PayloadOf<typeof agents, 'deliver_report'>>().toEqualTypeOf<{ thesis: string }>();
    expectTypeOf<PayloadOf<typeof agents, 'review_verdict'>['verdict']>().toEqualTypeOf<
      'pass' | 'revise' | 'block'
    >();
    expectTypeOf<IntentNameOf<ReturnType<typeof defineAgentIntents>>>().toEqualTypeOf<
      | 'assign_task'
      | 'deliver_report'
      | 'request_clarification'
      | 'review_request'
      | 'review_verdict'
      | 'collect_opinion'
      | 'escalate'
      | 'notify'
    >();
  });

  it('defaults deliver_report to any JSON object', () => {
    const agents = defineAgentIntents();
    expectTypeOf<PayloadOf<typeof agents, 'deliver_report'>>().toEqualTypeOf<Record<string, unknown>>();
  });
});

describe('artifact sets', () => {
  const Bull = z.object({ thesis: z.string() });
  const Bear = z.object({ risk: z.string() });

  it('types deliver_report as the union of the artifacts given as reports', () => {
    const intents = defineAgentIntents({
      reports: { 'Bullish_Brief.json': Bull, 'Bearish_Brief.json': Bear },
    });
    expectTypeOf<PayloadOf<typeof intents, 'deliver_report'>>().toEqualTypeOf<
      { thesis: string } | { risk: string }
    >();
    expectTypeOf<PayloadOf<typeof intents, 'escalate'>['reason']>().toEqualTypeOf<string>();
    const set = defineArtifacts({ 'A.json': Bull, 'B.json': Bear });
    expectTypeOf<InferOutput<typeof set>>().toEqualTypeOf<{ thesis: string } | { risk: string }>();
    const wide: ArtifactSet = set; // a specific set is an ArtifactSet
    expectTypeOf(wide.names).toEqualTypeOf<readonly string[]>();
    // @ts-expect-error report and reports are exclusive
    defineAgentIntents({ report: Bull, reports: { 'A.json': Bull } });
  });

  it('carries ref and artifact on a decoded result', () => {
    const codec = createCodec(defineAgentIntents({ reports: { 'A.json': Bull } }));
    const result = codec.decode('{}');
    if (result.ok) {
      expectTypeOf(result.ref).toEqualTypeOf<string | undefined>();
      expectTypeOf(result.artifact).toEqualTypeOf<string | undefined>();
    } else if (result.code === 'unknown_artifact') {
      expectTypeOf(result.known).toEqualTypeOf<readonly string[]>();
    }
  });
});
