// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/envelope, compiled and run; each console.log of an example is an assertion here.
import { describe, expect, it } from 'vitest';
import { createManualClock, createSequentialIds, type InferOutput, isParleyError } from '@parley/core';
import {
  type ArtifactMatch,
  type ArtifactSchemas,
  type ArtifactSet,
  type ArtifactSetOptions,
  defineArtifacts,
  isArtifactSet,
  type SpawnWaitOptions,
  type AgentDirectory,
  type AgentInfo,
  type AgentIntentsOptions,
  type AgentIntentSpecs,
  type AgentPayloadSchemas,
  type Codec,
  type CodecOptions,
  createCodec,
  createEnvelope,
  type CreateEnvelopeOptions,
  createMissingFieldsReply,
  createTopology,
  DECODE_REFUSAL_CODES,
  type DecodedEnvelopeOf,
  type DecodeRefusal,
  type DecodeRefusalCode,
  type DecodeResult,
  DEFAULT_ENVELOPE_LIMITS,
  DEFAULT_TOPOLOGY_LIMITS,
  type DefaultReportSchema,
  defineAgentIntents,
  defineIntents,
  type Direction,
  type DirectionRule,
  type Envelope,
  ENVELOPE_ERROR_CODES,
  EnvelopeError,
  type EnvelopeErrorCode,
  type EnvelopeInit,
  type EnvelopeOf,
  type IntentNameOf,
  type IntentRegistry,
  type IntentSpec,
  type IntentSpecs,
  isPayloadRef,
  MAX_TOPOLOGY_LIMITS,
  MISSING_FIELDS_INTENT,
  type MissingFieldsEnvelope,
  type MissingFieldsPayload,
  parseEnvelope,
  type PayloadInputOf,
  type PayloadOf,
  type PayloadRef,
  REF_PATTERN,
  type RefResolver,
  type RefusalOmitted,
  REPLY_LIMITS,
  safeParseEnvelope,
  type SpawnRequest,
  type SpawnResult,
  toEnvelopeJsonSchema,
  toIntentJsonSchemas,
  type Topology,
  TOPOLOGY_REFUSAL_CODES,
  type TopologyCheck,
  type TopologyEvents,
  type TopologyLimits,
  type TopologyOptions,
  type TopologyRefusal,
  type TopologyRefusalCode,
  type TopologySnapshot,
} from '../src/index.js';
import { z } from 'zod';

describe('agent-intents.ts examples', () => {
  it('AgentPayloadSchemas', () => {
    const verdict: InferOutput<AgentPayloadSchemas['review_verdict']> = {
      verdict: 'pass',
      issues: [],
      summary: 'ok',
    };
    expect(defineAgentIntents().get('review_verdict').payload.parse(verdict)).toEqual(verdict);
  });

  it('AgentIntentsOptions', () => {
    const options: AgentIntentsOptions<z.ZodObject<{ thesis: z.ZodString }>> = {
      roles: { escalation: 'ceo_coo' },
      report: z.object({ thesis: z.string() }),
    };
  });

  it('AgentIntentSpecs', () => {
    type Names = keyof AgentIntentSpecs; // 'assign_task' | 'deliver_report' | …
    const name: Names = 'escalate';
  });

  it('DefaultReportSchema', () => {
    const report: InferOutput<DefaultReportSchema> = { thesis: 'up' };
  });

  it('defineAgentIntents', () => {
    const intents = defineAgentIntents({
      report: z.object({ thesis: z.string() }),
      roles: { escalation: 'ceo_coo' },
    });
    const codec = createCodec(intents);
    const envelope = codec.create('escalate', {
      from: 'quant_strategist',
      to: 'ceo_coo',
      payload: { reason: 'review blocked' },
    });
    expect([intents.names.length, envelope.intent]).toEqual([8, 'escalate']);

    // One intent set for every artifact of a pipeline:
    const pipeline = defineAgentIntents({
      reports: {
        'Bullish_Brief.json': z.object({ thesis: z.string() }),
        'Bearish_Brief.json': z.object({ risk: z.string() }),
      },
    });
    const artifacts = new Map<string, unknown>([['Bearish_Brief.json', { risk: 'lower high' }]]);
    const reports = createCodec(pipeline, { resolveRef: (ref) => artifacts.get(ref) });
    const result = reports.decode(
      reports.encode(
        reports.create('deliver_report', {
          from: 'bear',
          to: 'lead',
          payload: { $ref: 'Bearish_Brief.json' },
        }),
      ),
    );
    expect([result.ok && result.ref, result.ok && result.artifact]).toEqual([
      'Bearish_Brief.json',
      'Bearish_Brief.json',
    ]);
  });
});

describe('artifacts.ts examples', () => {
  it('ArtifactSchemas', () => {
    const reports: ArtifactSchemas = { 'Bullish_Brief.json': z.object({ thesis: z.string() }) };
  });

  it('ArtifactSetOptions', () => {
    const options: ArtifactSetOptions = { field: 'kind' };
  });

  it('ArtifactMatch', () => {
    const reports = defineArtifacts({ 'Bullish_Brief.json': z.object({ thesis: z.string() }) });
    const match: ArtifactMatch | undefined = reports.select('Bullish_Brief');
    expect(match?.artifact).toBe('Bullish_Brief.json');
  });

  it('ArtifactSet', () => {
    const reports: ArtifactSet = defineArtifacts({ 'Bullish_Brief.json': z.object({ thesis: z.string() }) });
    expect([reports.names, reports.field]).toEqual([['Bullish_Brief.json'], 'artifact']);
  });

  it('defineArtifacts', () => {
    const reports = defineArtifacts({
      'Bullish_Brief.json': z.object({ artifact: z.string(), thesis: z.string() }),
      'Bearish_Brief.json': z.object({ artifact: z.string(), risk: z.string() }),
    });
    const codec = createCodec(defineIntents({ deliver_report: { direction: 'any', payload: reports } }));
    const envelope = codec.create('deliver_report', {
      from: 'bear',
      to: 'lead',
      payload: { artifact: 'Bearish_Brief', risk: 'lower high' },
    });
    const result = codec.decode(codec.encode(envelope));
    expect(result.ok && result.artifact).toBe('Bearish_Brief.json');
  });

  it('isArtifactSet', () => {
    expect([isArtifactSet(defineArtifacts({ 'A.json': z.object({}) })), isArtifactSet(z.object({}))]).toEqual(
      [true, false],
    );
  });

  it('SpawnWaitOptions', () => {
    const controller = new AbortController();
    const options: SpawnWaitOptions = { signal: controller.signal };
  });
});

describe('codec.ts examples', () => {
  it('DEFAULT_ENVELOPE_LIMITS', () => {
    expect(DEFAULT_ENVELOPE_LIMITS.maxDepth).toBe(32);
  });

  it('RefusalOmitted', () => {
    const omitted: RefusalOmitted = { issues: 44_950, missingFields: 0 };
    expect(omitted.issues).toBe(44_950);
  });

  it('RefResolver', () => {
    const artifacts = new Map<string, unknown>([['Bullish_Brief.json', { thesis: 'up' }]]);
    const resolveRef: RefResolver = (ref) => artifacts.get(ref);
  });

  it('CodecOptions', () => {
    const options: CodecOptions = {
      limits: { maxBytes: 64 * 1024 },
      clock: createManualClock(),
      generateId: createSequentialIds('env_'),
    };
  });

  it('DecodeRefusal', () => {
    function log(refusal: DecodeRefusal): string {
      return refusal.code === 'invalid_payload' ? refusal.missingFields.join(', ') : refusal.message;
    }
  });

  it('DecodeResult', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    function text(result: DecodeResult<typeof intents>): string {
      if (!result.ok) return result.code;
      return result.value.intent === 'notify' ? result.value.payload.message : 'reply';
    }
  });

  it('Codec', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const codec: Codec<typeof intents> = createCodec(intents);
  });

  it('createCodec', () => {
    const intents = defineIntents({
      deliver_report: {
        direction: 'up',
        payload: z.object({ thesis: z.string(), invalidation: z.string() }),
      },
    });
    const codec = createCodec(intents, {
      clock: createManualClock(),
      generateId: createSequentialIds('env_'),
    });
    const text = codec.encode(
      codec.create('deliver_report', {
        from: 'bull',
        to: 'lead',
        payload: { thesis: 'up', invalidation: '< 60k' },
      }),
    );
    const result = codec.decode(text);
    expect(result.ok && result.value.intent === 'deliver_report' && result.value.payload.thesis).toBe('up');

    const incomplete = codec.decode(text.replace(',"invalidation":"< 60k"', ''));
    if (!incomplete.ok && incomplete.code === 'invalid_payload') {
      expect([incomplete.reply?.to, incomplete.reply?.payload.missing_fields]).toEqual([
        'bull',
        ['invalidation'],
      ]);
    }
  });

  it('safeParseEnvelope', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const result = safeParseEnvelope(intents, '{"intent":"notify","__proto__":{}}');
    expect(result.ok ? 'accepted' : result.code).toBe('json_forbidden_key');
  });

  it('parseEnvelope', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const envelope = parseEnvelope(
      intents,
      '{"id":"e1","from":"ceo","to":"discord","intent":"notify","payload":{"message":"hi"},"sent_at":0,"spawn_depth":0}',
    );
    expect(envelope.payload).toEqual({ message: 'hi' });
  });
});

describe('directory.ts examples', () => {
  it('AgentInfo', () => {
    const info: AgentInfo = {
      id: 'bull_1',
      role: 'bullish_researcher',
      parent: 'quant_strategist',
      depth: 2,
      kind: 'agent',
      startedAt: 0,
    };
  });

  it('AgentDirectory', () => {
    const agents = new Map<string, AgentInfo>();
    const directory: AgentDirectory = { agent: (id) => agents.get(id) };
  });
});

describe('envelope.ts examples', () => {
  it('Envelope', () => {
    const envelope: Envelope<'deliver_report', { $ref: string }> = {
      id: 'env_1',
      from: 'bullish_researcher',
      to: 'quant_strategist',
      intent: 'deliver_report',
      ref_task: 'quant-pipeline-2026-04-10',
      payload: { $ref: 'Bullish_Brief.json' },
      expect_response: false,
      sent_at: 1_775_800_000_000,
      spawn_depth: 2,
    };
  });

  it('MISSING_FIELDS_INTENT', () => {
    expect(MISSING_FIELDS_INTENT).toBe('missing_fields');
  });

  it('MissingFieldsPayload', () => {
    const payload: MissingFieldsPayload = {
      intent: 'deliver_report',
      missing_fields: ['key_levels[0].evidence', 'invalidation'],
      issues: [{ path: 'invalidation', message: 'Invalid input: expected string, received undefined' }],
    };
  });

  it('MissingFieldsEnvelope', () => {
    function fieldsToFix(reply: MissingFieldsEnvelope): readonly string[] {
      return reply.payload.missing_fields;
    }
  });

  it('EnvelopeOf', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    function text(envelope: EnvelopeOf<typeof intents, 'notify'>): string {
      return envelope.payload.message;
    }
  });

  it('DecodedEnvelopeOf', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    function describe(envelope: DecodedEnvelopeOf<typeof intents>): string {
      return envelope.intent === 'notify' ? envelope.payload.message : envelope.payload.missing_fields.join();
    }
  });

  it('EnvelopeInit', () => {
    const init: EnvelopeInit<{ message: string }> = {
      from: 'ceo',
      to: 'discord',
      payload: { message: 'done' },
    };
  });

  it('CreateEnvelopeOptions', () => {
    const options: CreateEnvelopeOptions = {
      clock: createManualClock(),
      generateId: createSequentialIds('env_'),
    };
  });

  it('createEnvelope', () => {
    const intents = defineIntents({
      deliver_report: { direction: 'up', payload: z.object({ summary: z.string() }) },
    });
    const envelope = createEnvelope(
      intents,
      'deliver_report',
      { from: 'analyst', to: 'lead', ref_task: 'run-1', payload: { summary: 'ok' }, spawn_depth: 1 },
      { clock: createManualClock({ now: 1000 }), generateId: createSequentialIds('env_') },
    );
    expect([envelope.id, envelope.sent_at]).toEqual(['env_1', 1000]);
  });

  it('createMissingFieldsReply', () => {
    const refused: Envelope = {
      id: 'env_7',
      from: 'bull',
      to: 'lead',
      intent: 'deliver_report',
      payload: {},
      expect_response: false,
      sent_at: 0,
      spawn_depth: 2,
    };
    const reply = createMissingFieldsReply(
      refused,
      { missingFields: ['thesis'], issues: [{ pathText: 'thesis', message: 'Required' }] },
      { spawn_depth: 1, clock: createManualClock(), generateId: createSequentialIds('env_') },
    );
    expect([reply.to, reply.in_reply_to, reply.payload.missing_fields]).toEqual([
      'bull',
      'env_7',
      ['thesis'],
    ]);
  });
});

describe('errors.ts examples', () => {
  it('DECODE_REFUSAL_CODES', () => {
    expect(DECODE_REFUSAL_CODES.includes('unknown_intent')).toBe(true);
  });

  it('DecodeRefusalCode', () => {
    const code: DecodeRefusalCode = 'wrong_direction';
  });

  it('TOPOLOGY_REFUSAL_CODES', () => {
    expect(TOPOLOGY_REFUSAL_CODES.includes('lateral_message')).toBe(true);
  });

  it('TopologyRefusalCode', () => {
    const code: TopologyRefusalCode = 'send_not_allowed';
  });

  it('ENVELOPE_ERROR_CODES', () => {
    expect(ENVELOPE_ERROR_CODES.includes('invalid_definition')).toBe(true);
  });

  it('EnvelopeErrorCode', () => {
    const code: EnvelopeErrorCode = 'invalid_payload';
  });

  it('EnvelopeError', () => {
    try {
      defineIntents({ notify: { direction: 'sideways' as 'any', payload: {} as never } });
    } catch (err) {
      expect([err instanceof EnvelopeError, isParleyError(err, 'invalid_definition')]).toEqual([true, true]);
    }
  });
});

describe('intents.ts examples', () => {
  it('DirectionRule', () => {
    // review_verdict: a reviewer answers the agent that spawned it
    const rule: DirectionRule = { fromRole: 'reviewer', to: 'parent' };
  });

  it('Direction', () => {
    const escalate: Direction = { toRole: 'ceo' };
    const assign: Direction = 'down';
  });

  it('IntentSpec', () => {
    const deliver: IntentSpec = { direction: 'up', payload: z.object({ summary: z.string() }) };
  });

  it('IntentSpecs', () => {
    const specs: IntentSpecs = { notify: { direction: 'any', payload: z.object({ message: z.string() }) } };
  });

  it('IntentRegistry', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const registry: IntentRegistry = intents;
    expect(registry.names).toEqual(['notify']);
  });

  it('IntentNameOf', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const name: IntentNameOf<typeof intents> = 'notify';
  });

  it('PayloadOf', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const payload: PayloadOf<typeof intents, 'notify'> = { message: 'pipeline done' };
  });

  it('PayloadInputOf', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ n: z.coerce.number() }) },
    });
    const payload: PayloadInputOf<typeof intents, 'notify'> = { n: '3' };
  });

  it('defineIntents', () => {
    const intents = defineIntents({
      assign_task: { direction: 'down', payload: z.object({ task: z.string() }) },
      deliver_report: { direction: 'up', payload: z.object({ summary: z.string() }) },
      escalate: { direction: { toRole: 'ceo' }, payload: z.object({ reason: z.string() }) },
    });
    expect(intents.names).toEqual(['assign_task', 'deliver_report', 'escalate']);
    expect(intents.directionOf('deliver_report')).toEqual({ to: 'parent' });
  });
});

describe('json-schema.ts examples', () => {
  it('toIntentJsonSchemas', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    expect(toIntentJsonSchemas(intents).notify.required).toEqual(['message']);
  });

  it('toEnvelopeJsonSchema', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ message: z.string() }) },
    });
    const schema = toEnvelopeJsonSchema(intents, 'notify');
    expect((schema.properties as Record<string, unknown>).intent).toEqual({
      type: 'string',
      enum: ['notify'],
    });
  });
});

describe('payload-ref.ts examples', () => {
  it('PayloadRef', () => {
    const ref: PayloadRef = { $ref: 'Bullish_Brief.json' };
  });

  it('isPayloadRef', () => {
    expect([isPayloadRef({ $ref: 'Bullish_Brief.json' }), isPayloadRef({ thesis: 'up' })]).toEqual([
      true,
      false,
    ]);
  });

  it('REF_PATTERN', () => {
    expect([REF_PATTERN.test('Bullish_Brief.json'), REF_PATTERN.test('../secrets.json')]).toEqual([
      true,
      false,
    ]);
  });
});

describe('topology.ts examples', () => {
  it('TopologyLimits', () => {
    const limits: TopologyLimits = { maxSpawnDepth: 2, maxChildrenPerAgent: 5, maxConcurrent: 8 };
  });

  it('DEFAULT_TOPOLOGY_LIMITS', () => {
    expect(DEFAULT_TOPOLOGY_LIMITS.maxChildrenPerAgent).toBe(5);
  });

  it('MAX_TOPOLOGY_LIMITS', () => {
    expect(MAX_TOPOLOGY_LIMITS.maxSpawnDepth).toBe(5);
  });

  it('TopologySnapshot', () => {
    const snapshot: TopologySnapshot = {
      version: 1,
      agents: [{ id: 'ceo', role: 'ceo', parent: null, depth: 0, kind: 'agent', startedAt: 0 }],
    };
  });

  it('TopologyOptions', () => {
    const options: TopologyOptions = {
      maxSpawnDepth: 2,
      clock: createManualClock(),
      generateId: createSequentialIds('run_'),
    };
  });

  it('SpawnRequest', () => {
    const request: SpawnRequest = { parent: 'quant_strategist', role: 'reviewer' };
  });

  it('TopologyRefusal', () => {
    const refusal: TopologyRefusal = {
      ok: false,
      code: 'lateral_message',
      message: 'Siblings never talk',
      details: { from: 'bull', to: 'bear' },
    };
  });

  it('TopologyCheck', () => {
    const allowed: TopologyCheck = { ok: true };
  });

  it('SpawnResult', () => {
    function runId(result: SpawnResult): string | undefined {
      return result.ok ? result.value.id : undefined;
    }
  });

  it('TopologyEvents', () => {
    const onRefused = (event: TopologyEvents['refused']): string => `${event.action}: ${event.code}`;
  });

  it('Topology', () => {
    const topology: Topology = createTopology({ maxSpawnDepth: 2 });
  });

  it('createTopology', () => {
    const topology = createTopology({ maxSpawnDepth: 2 });
    topology.register({ id: 'ceo' });
    const strategist = topology.spawn({ parent: 'ceo', id: 'quant_strategist' });
    const bull = topology.spawn({ parent: 'quant_strategist', id: 'bull' });
    const bear = topology.spawn({ parent: 'quant_strategist', id: 'bear' });
    expect(strategist.ok && bull.ok && bear.ok).toBe(true);

    const envelope = { from: 'bull', to: 'quant_strategist', expect_response: false, spawn_depth: 2 };
    expect(topology.check(envelope).ok).toBe(true);
    const lateral = topology.check({ ...envelope, to: 'bear' });
    expect(lateral.ok ? 'allowed' : lateral.code).toBe('lateral_message');
  });
});

describe('README', () => {
  it('runs the README snippet: an incomplete brief by $ref comes back as a missing_fields reply', () => {
    const BullishBrief = z.object({ thesis: z.string(), invalidation: z.string(), confidence: z.number() });
    const intents = defineAgentIntents({ report: BullishBrief });

    const topology = createTopology({ maxSpawnDepth: 2 });
    topology.register({ id: 'ceo', role: 'ceo' });
    topology.spawn({ parent: 'ceo', id: 'quant_strategist' });
    topology.spawn({ parent: 'quant_strategist', id: 'bullish_researcher' });

    const artifacts = new Map<string, unknown>();
    const codec = createCodec(intents, { directory: topology, resolveRef: (ref) => artifacts.get(ref) });

    artifacts.set('Bullish_Brief.json', { thesis: 'Higher low holds', confidence: 0.6 });
    const text = codec.encode(
      codec.create('deliver_report', {
        from: 'bullish_researcher',
        to: 'quant_strategist',
        ref_task: 'quant-pipeline-2026-04-10',
        payload: { $ref: 'Bullish_Brief.json' },
        spawn_depth: 2,
      }),
    );

    const result = codec.decode(text);
    expect(result.ok).toBe(false);
    if (!result.ok && result.code === 'invalid_payload' && result.reply) {
      expect(result.reply.payload.missing_fields).toEqual(['invalidation']);
      expect(result.reply.to).toBe('bullish_researcher');
      expect(topology.check(result.reply).ok).toBe(true);
    } else {
      throw new Error('expected a missing_fields reply');
    }
    artifacts.set('Bullish_Brief.json', {
      thesis: 'Higher low holds',
      invalidation: '< 80k',
      confidence: 0.6,
    });
    const accepted = codec.decode(text);
    expect(accepted.ok && topology.check(accepted.value).ok).toBe(true);
    expect(accepted.ok && accepted.value.intent === 'deliver_report' && accepted.value.payload.thesis).toBe(
      'Higher low holds',
    );
  });
});

describe('reply-limits.ts examples', () => {
  it('REPLY_LIMITS', () => {
    expect([REPLY_LIMITS.maxIssues, REPLY_LIMITS.maxBytes]).toEqual([50, 32768]);
  });
});
