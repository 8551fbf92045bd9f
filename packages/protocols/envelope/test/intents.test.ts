import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createCodec,
  createTopology,
  defineAgentIntents,
  defineIntents,
  toEnvelopeJsonSchema,
  toIntentJsonSchemas,
} from '../src/index.js';
import { fakes, MarketStructureReport, pipelineIntents, text } from './helpers.js';

const notify = { direction: 'any', payload: z.object({ message: z.string() }) } as const;

describe('defineIntents', () => {
  it('keeps names in order and gives every direction in object form', () => {
    const intents = defineIntents({
      down: { direction: 'down', payload: z.string() },
      up: { direction: 'up', payload: z.string() },
      any: { direction: 'any', payload: z.string() },
      role: { direction: { fromRole: 'coordinator', toRole: 'analyst' }, payload: z.string() },
    });
    expect(intents.names).toEqual(['down', 'up', 'any', 'role']);
    expect(intents.names.map((name) => intents.directionOf(name as 'down'))).toEqual([
      { to: 'child' },
      { to: 'parent' },
      {},
      { fromRole: 'coordinator', toRole: 'analyst' },
    ]);
    expect(Object.isFrozen(intents)).toBe(true);
    expect(Object.isFrozen(intents.specs)).toBe(true);
  });

  it('answers has and get for its own names only', () => {
    const intents = defineIntents({ notify });
    expect(intents.has('notify')).toBe(true);
    expect(intents.has('toString')).toBe(false);
    expect(intents.has('__proto__')).toBe(false);
    expect(intents.get('notify')).toBe(intents.specs.notify);
    expect(() => intents.get('toString' as 'notify')).toThrow(
      expect.objectContaining({ code: 'unknown_intent' }),
    );
    expect(() => intents.directionOf('x' as 'notify')).toThrow(
      expect.objectContaining({ code: 'unknown_intent' }),
    );
  });

  it('accepts any Standard Schema, such as valibot, as a payload', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: v.object({ message: v.string() }) },
    });
    const codec = createCodec(intents, fakes());
    expect(codec.decode(text({ intent: 'notify', payload: { message: 'hi' } })).ok).toBe(true);
    expect(codec.decode(text({ intent: 'notify', payload: {} }))).toMatchObject({
      missingFields: ['message'],
    });
  });

  it('refuses malformed definitions with invalid_definition', () => {
    const bad: unknown[] = [
      null,
      [],
      { '': notify },
      { 'has space': notify },
      { missing_fields: notify },
      { notify: null },
      { notify: { direction: 'any', payload: { parse: () => 1 } } },
      { notify: { direction: 'sideways', payload: z.string() } },
      { notify: { direction: null, payload: z.string() } },
      { notify: { direction: ['up'], payload: z.string() } },
      { notify: { direction: { from: 'ceo' }, payload: z.string() } },
      { notify: { direction: { toRole: '' }, payload: z.string() } },
      { notify: { direction: { fromRole: 3 }, payload: z.string() } },
      { notify: { direction: { to: 'sibling' }, payload: z.string() } },
    ];
    for (const specs of bad) {
      expect(() => defineIntents(specs as never)).toThrow(
        expect.objectContaining({ code: 'invalid_definition' }),
      );
    }
  });
});

describe('defineAgentIntents', () => {
  it('ships the eight intents of the reference protocol with their directions', () => {
    const intents = defineAgentIntents();
    expect(intents.names).toEqual([
      'assign_task',
      'deliver_report',
      'request_clarification',
      'review_request',
      'review_verdict',
      'collect_opinion',
      'escalate',
      'notify',
    ]);
    expect(intents.directionOf('review_verdict')).toEqual({ fromRole: 'reviewer', to: 'parent' });
    expect(intents.directionOf('escalate')).toEqual({ toRole: 'ceo' });
    expect(intents.directionOf('notify')).toEqual({ toRole: 'notifier' });
    expect(intents.directionOf('collect_opinion')).toEqual({ fromRole: 'coordinator' });
  });

  it('takes the host role names and report schema', () => {
    const intents = defineAgentIntents({
      roles: { reviewer: 'auditor', coordinator: 'lead', escalation: 'ceo_coo', notifications: 'discord' },
      report: MarketStructureReport,
    });
    expect(intents.directionOf('review_request')).toEqual({ toRole: 'auditor' });
    expect(intents.directionOf('escalate')).toEqual({ toRole: 'ceo_coo' });
    expect(intents.get('deliver_report').payload).toBe(MarketStructureReport);
  });

  it('runs the seed pipeline: assign, deliver by $ref, review verdict, clarification with missing fields', () => {
    const topology = createTopology({ maxSpawnDepth: 2 });
    topology.register({ id: 'ceo', role: 'ceo' });
    topology.spawn({ parent: 'ceo', id: 'quant_strategist' });
    topology.spawn({ parent: 'quant_strategist', id: 'bullish_researcher' });
    topology.spawn({ parent: 'quant_strategist', id: 'rev', role: 'reviewer' });
    const artifacts = new Map<string, unknown>([
      ['Bullish_Brief.json', { thesis: 'up', invalidation: '< 60k' }],
    ]);
    const codec = createCodec(defineAgentIntents(), {
      ...fakes(),
      directory: topology,
      resolveRef: (ref) => artifacts.get(ref),
    });
    const sent = [
      codec.create('assign_task', {
        from: 'quant_strategist',
        to: 'bullish_researcher',
        payload: { task: 'Bull case for BTC', output: 'Bullish_Brief.json' },
        spawn_depth: 1,
      }),
      codec.create('deliver_report', {
        from: 'bullish_researcher',
        to: 'quant_strategist',
        payload: { $ref: 'Bullish_Brief.json' },
        spawn_depth: 2,
      }),
      codec.create('review_verdict', {
        from: 'rev',
        to: 'quant_strategist',
        payload: {
          verdict: 'revise',
          issues: [{ severity: 'major', field: 'key_levels', description: 'no evidence' }],
          summary: 'fix',
        },
        spawn_depth: 2,
      }),
      codec.create('request_clarification', {
        from: 'quant_strategist',
        to: 'bullish_researcher',
        payload: {
          previous_report: { $ref: 'Bullish_Brief.json' },
          missing_fields: ['key_levels[].evidence'],
          question: 'Levels?',
        },
        spawn_depth: 1,
      }),
      codec.create('escalate', {
        from: 'quant_strategist',
        to: 'ceo',
        payload: { reason: 'revise x3' },
        spawn_depth: 1,
      }),
    ];
    for (const envelope of sent) {
      const decoded = codec.decode(codec.encode(envelope));
      expect(decoded.ok).toBe(true);
      if (decoded.ok) expect(topology.check(decoded.value).ok).toBe(true);
    }
    const wrongWay = codec.decode(
      codec.encode({ ...sent[2], from: 'bullish_researcher' } as (typeof sent)[number]),
    );
    expect(wrongWay).toMatchObject({ code: 'wrong_direction' });
  });

  it('refuses a role name that is empty', () => {
    expect(() => defineAgentIntents({ roles: { reviewer: '' } })).toThrow(
      expect.objectContaining({ code: 'invalid_definition' }),
    );
  });
});

describe('JSON Schema export', () => {
  it('exports every payload schema, with the intent description when the schema has none', () => {
    const schemas = toIntentJsonSchemas(pipelineIntents());
    expect(Object.keys(schemas)).toEqual([
      'assign_task',
      'deliver_brief',
      'deliver_structure',
      'escalate',
      'review_verdict',
    ]);
    expect(schemas.deliver_brief).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['date', 'sentiment']),
    });
    const agents = toIntentJsonSchemas(defineAgentIntents(), { target: 'draft-07' });
    expect(agents.notify).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      description: 'A one-way notification, not a conversation',
    });
    const described = defineIntents({
      n: { direction: 'any', payload: z.string().describe('own'), description: 'spec' },
    });
    expect(toIntentJsonSchemas(described).n.description).toBe('own');
  });

  it('exports a whole envelope with the intent fixed and the payload inlined', () => {
    const schema = toEnvelopeJsonSchema(pipelineIntents(), 'escalate');
    expect(schema).toMatchObject({
      $schema: expect.stringContaining('2020-12'),
      type: 'object',
      additionalProperties: false,
      required: ['id', 'from', 'to', 'intent', 'payload', 'sent_at', 'spawn_depth'],
      properties: {
        intent: { type: 'string', enum: ['escalate'] },
        payload: { type: 'object', required: ['reason'] },
        spawn_depth: { type: 'integer', minimum: 0, maximum: 5 },
      },
    });
    expect((schema.properties as { payload: object }).payload).not.toHaveProperty('$schema');
    const openapi = toEnvelopeJsonSchema(pipelineIntents(), 'escalate', { target: 'openapi-3.0' });
    expect(openapi).not.toHaveProperty('$schema');
  });

  it('refuses a schema that cannot be exported, naming the intent', () => {
    const intents = defineIntents({
      ok: notify,
      legacy: { direction: 'any', payload: v.object({ a: v.string() }) },
    });
    expect(() => toIntentJsonSchemas(intents)).toThrow(
      expect.objectContaining({ code: 'schema_not_convertible', details: { intent: 'legacy' } }),
    );
    const dated = defineIntents({ at: { direction: 'any', payload: z.object({ at: z.date() }) } });
    expect(() => toEnvelopeJsonSchema(dated, 'at')).toThrow(
      expect.objectContaining({ code: 'schema_not_convertible' }),
    );
    expect(() => toEnvelopeJsonSchema(dated, 'nope' as 'at')).toThrow(
      expect.objectContaining({ code: 'unknown_intent' }),
    );
  });
});
