import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createCodec,
  createEnvelope,
  createMissingFieldsReply,
  defineIntents,
  EnvelopeError,
  parseEnvelope,
  safeParseEnvelope,
} from '../src/index.js';
import { brief, fakes, pipelineIntents, structureReport, text, wire } from './helpers.js';

describe('createCodec: create, encode, decode', () => {
  it('creates an envelope with a generated id and the clock time, and decodes its text back', () => {
    const codec = createCodec(pipelineIntents(), fakes(1_000));
    const envelope = codec.create('deliver_structure', {
      from: 'market_structure_researcher',
      to: 'quant_strategist',
      ref_task: 'run-1',
      payload: structureReport,
      spawn_depth: 2,
    });
    expect(envelope).toEqual({
      id: 'env_1',
      from: 'market_structure_researcher',
      to: 'quant_strategist',
      intent: 'deliver_structure',
      ref_task: 'run-1',
      payload: structureReport,
      expect_response: false,
      sent_at: 1_000,
      spawn_depth: 2,
    });
    const result = codec.decode(codec.encode(envelope));
    expect(result).toEqual({ ok: true, value: envelope });
  });

  it('leaves out optional fields that were not given and keeps the correlation fields that were', () => {
    const codec = createCodec(pipelineIntents(), fakes());
    const plain = codec.create('assign_task', { from: 'a', to: 'b', payload: { task: 't' } });
    expect(Object.keys(plain)).not.toContain('ref_task');
    expect(Object.keys(plain)).not.toContain('request_id');
    const correlated = codec.create('assign_task', {
      from: 'a',
      to: 'b',
      payload: { task: 't' },
      request_id: 'req_1',
      in_reply_to: 'env_0',
      expect_response: true,
    });
    expect(correlated).toMatchObject({ request_id: 'req_1', in_reply_to: 'env_0', expect_response: true });
  });

  it('defaults expect_response to false when the wire omits it', () => {
    const { expect_response: _omit, ...rest } = wire();
    const result = createCodec(pipelineIntents()).decode(JSON.stringify(rest));
    expect(result.ok && result.value.expect_response).toBe(false);
  });

  it('returns the validated payload, with unknown keys stripped by the schema', () => {
    const result = createCodec(pipelineIntents()).decode(text({ payload: { ...brief, extra: 'x' } }));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.payload).toEqual(brief);
  });

  it('refuses to encode a value JSON cannot carry, naming its path', () => {
    const codec = createCodec(pipelineIntents(), fakes());
    const envelope = {
      ...codec.create('assign_task', { from: 'a', to: 'b', payload: { task: 't' } }),
      payload: { at: new Date(0) },
    };
    expect(() => codec.encode(envelope)).toThrow(
      expect.objectContaining({ code: 'not_serializable', details: { path: 'payload.at' } }),
    );
  });
});

describe('createEnvelope', () => {
  it('refuses an intent the registry lacks', () => {
    const intents = pipelineIntents();
    expect(() =>
      createEnvelope(intents, 'delete_all' as 'assign_task', { from: 'a', to: 'b', payload: { task: 't' } }),
    ).toThrow(expect.objectContaining({ code: 'unknown_intent', details: { intent: 'delete_all' } }));
  });

  it('refuses a payload that fails its schema, listing the missing fields', () => {
    const { invalidation: _i, ...partial } = { ...brief, invalidation: 'x' };
    const { macro_summary: _m, sentiment: _s, ...incomplete } = partial;
    let caught: unknown;
    try {
      createEnvelope(pipelineIntents(), 'deliver_brief', {
        from: 'a',
        to: 'b',
        payload: incomplete as typeof brief,
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(EnvelopeError);
    expect(isParleyError(caught, 'invalid_payload')).toBe(true);
    expect((caught as EnvelopeError).details.missingFields).toEqual(['macro_summary', 'sentiment']);
  });

  it('refuses a frame field that is empty', () => {
    expect(() =>
      createEnvelope(pipelineIntents(), 'assign_task', { from: '', to: 'b', payload: { task: 't' } }),
    ).toThrow(expect.objectContaining({ code: 'invalid_envelope' }));
  });

  it('refuses an async payload schema with needs_async', () => {
    const intents = defineIntents({
      notify: { direction: 'any', payload: z.object({ m: z.string() }).refine(async () => true) },
    });
    expect(() => createEnvelope(intents, 'notify', { from: 'a', to: 'b', payload: { m: 'x' } })).toThrow(
      expect.objectContaining({ code: 'needs_async' }),
    );
  });

  it('accepts a $ref payload without validating it, and uses nanoid and the system clock by default', () => {
    const envelope = createEnvelope(pipelineIntents(), 'deliver_brief', {
      from: 'a',
      to: 'b',
      payload: { $ref: 'Finance_Research_Brief.json' },
    });
    expect(envelope.payload).toEqual({ $ref: 'Finance_Research_Brief.json' });
    expect(envelope.id).toMatch(/^[\w-]{21}$/);
    expect(envelope.sent_at).toBeGreaterThan(1_700_000_000_000);
  });
});

describe('createMissingFieldsReply', () => {
  it('addresses the reply back to the author, keeping the task and request ids', () => {
    const refused = { ...wire({ request_id: 'req_9' }), payload: {} } as Parameters<
      typeof createMissingFieldsReply
    >[0];
    const reply = createMissingFieldsReply(
      refused,
      { missingFields: ['date'], issues: [{ pathText: 'date', message: 'Required' }] },
      { ...fakes(7), spawn_depth: 1 },
    );
    expect(reply).toEqual({
      id: 'env_1',
      from: 'quant_strategist',
      to: 'finance_researcher',
      intent: 'missing_fields',
      ref_task: 'quant-pipeline-2026-04-10',
      request_id: 'req_9',
      in_reply_to: 'env_in',
      payload: {
        intent: 'deliver_brief',
        missing_fields: ['date'],
        issues: [{ path: 'date', message: 'Required' }],
      },
      expect_response: false,
      sent_at: 7,
      spawn_depth: 1,
    });
  });

  it('defaults to depth 0, nanoid ids and the system clock', () => {
    const reply = createMissingFieldsReply(
      wire() as unknown as Parameters<typeof createMissingFieldsReply>[0],
      {
        missingFields: [],
        issues: [],
      },
    );
    expect(reply.spawn_depth).toBe(0);
    expect(reply.id).toMatch(/^[\w-]{21}$/);
  });
});

describe('parseEnvelope and safeParseEnvelope', () => {
  it('returns the envelope from parseEnvelope when it is sound', () => {
    expect(parseEnvelope(pipelineIntents(), text()).payload).toEqual(brief);
  });

  it('throws the refusal code from parseEnvelope, with the refusal facts in details', () => {
    let caught: unknown;
    try {
      parseEnvelope(pipelineIntents(), text({ intent: 'wipe_disk' }));
    } catch (err) {
      caught = err;
    }
    expect(isParleyError(caught, 'unknown_intent')).toBe(true);
    expect((caught as EnvelopeError).details.envelope).toMatchObject({ intent: 'wipe_disk' });
  });

  it('returns the refusal from safeParseEnvelope instead of throwing', () => {
    const result = safeParseEnvelope(pipelineIntents(), '{', { limits: { maxBytes: 10 } });
    expect(result).toMatchObject({ ok: false, code: 'json_syntax' });
  });
});
