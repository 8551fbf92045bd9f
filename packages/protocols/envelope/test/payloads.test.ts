import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createCodec, createTopology, defineIntents, type Envelope, type RefResolver } from '../src/index.js';
import { brief, fakes, pipelineIntents, structureReport, text } from './helpers.js';

const ref = { $ref: 'Finance_Research_Brief.json' };

describe('decode: $ref payloads', () => {
  it('resolves a $ref through the host resolver and validates what it returns', () => {
    const resolveRef = vi.fn<RefResolver>(() => brief);
    const result = createCodec(pipelineIntents(), { resolveRef }).decode(text({ payload: ref }));
    expect(result).toMatchObject({ ok: true, value: { payload: brief } });
    expect(resolveRef).toHaveBeenCalledWith(
      'Finance_Research_Brief.json',
      expect.objectContaining({ id: 'env_in' }),
    );
  });

  it('validates a resolved artifact like an inline one, replying with its missing fields', () => {
    const { sentiment: _s, ...partial } = brief;
    const result = createCodec(pipelineIntents(), { ...fakes(), resolveRef: () => partial }).decode(
      text({ payload: ref }),
    );
    expect(result).toMatchObject({ ok: false, code: 'invalid_payload', missingFields: ['sentiment'] });
  });

  it('refuses a $ref with unresolved_ref when there is no resolver', () => {
    expect(createCodec(pipelineIntents()).decode(text({ payload: ref }))).toMatchObject({
      ok: false,
      code: 'unresolved_ref',
      envelope: { id: 'env_in' },
    });
  });

  it('refuses a $ref the resolver does not know', () => {
    const result = createCodec(pipelineIntents(), { resolveRef: () => undefined }).decode(
      text({ payload: ref }),
    );
    expect(result).toMatchObject({
      ok: false,
      code: 'unresolved_ref',
      message: expect.stringContaining('No artifact'),
    });
  });

  it('refuses a $ref whose resolver throws, keeping the cause', () => {
    const boom = new Error('disk gone');
    const resolveRef = (): never => {
      throw boom;
    };
    const result = createCodec(pipelineIntents(), { resolveRef }).decode(text({ payload: ref }));
    expect(result).toMatchObject({ ok: false, code: 'unresolved_ref', cause: boom });
  });

  it('refuses a $ref that names a path without asking the resolver', () => {
    const resolveRef = vi.fn<RefResolver>(() => brief);
    const codec = createCodec(pipelineIntents(), { resolveRef });
    for (const name of ['../secrets.json', '/etc/passwd', '.env', 'a/b.json', '']) {
      expect(codec.decode(text({ payload: { $ref: name } }))).toMatchObject({
        ok: false,
        code: 'unresolved_ref',
      });
    }
    expect(resolveRef).not.toHaveBeenCalled();
  });

  it('treats an object with $ref and other keys as an inline payload', () => {
    const resolveRef = vi.fn<RefResolver>(() => brief);
    const result = createCodec(pipelineIntents(), { resolveRef }).decode(
      text({ payload: { ...brief, $ref: 'x.json' } }),
    );
    expect(result.ok).toBe(true);
    expect(resolveRef).not.toHaveBeenCalled();
  });

  it('refuses an async resolver in the synchronous decode with needs_async, leaving no unhandled rejection', () => {
    const resolveRef = (): Promise<never> => Promise.reject(new Error('late'));
    const result = createCodec(pipelineIntents(), { resolveRef }).decode(text({ payload: ref }));
    expect(result).toMatchObject({ ok: false, code: 'needs_async' });
  });
});

describe('decodeAsync', () => {
  it('awaits an async resolver', async () => {
    const resolveRef = async (): Promise<unknown> => structureReport;
    const codec = createCodec(pipelineIntents(), { resolveRef });
    const result = await codec.decodeAsync(
      text({ intent: 'deliver_structure', payload: { $ref: 'Market.json' } }),
    );
    expect(result).toMatchObject({ ok: true, value: { payload: structureReport } });
  });

  it('refuses a rejected, a missing and an unresolvable $ref with unresolved_ref', async () => {
    const failing = createCodec(pipelineIntents(), { resolveRef: () => Promise.reject(new Error('gone')) });
    expect(await failing.decodeAsync(text({ payload: ref }))).toMatchObject({
      code: 'unresolved_ref',
      cause: new Error('gone'),
    });
    const empty = createCodec(pipelineIntents(), { resolveRef: async () => undefined });
    expect(await empty.decodeAsync(text({ payload: ref }))).toMatchObject({ code: 'unresolved_ref' });
    expect(await createCodec(pipelineIntents()).decodeAsync(text({ payload: ref }))).toMatchObject({
      code: 'unresolved_ref',
    });
  });

  it('runs async payload schemas, which the synchronous decode refuses with needs_async', async () => {
    const intents = defineIntents({
      notify: {
        direction: 'any',
        payload: z.object({ m: z.string() }).refine(async (p) => p.m !== 'no', 'Refused'),
      },
    });
    const codec = createCodec(intents, fakes());
    expect(codec.decode(text({ intent: 'notify', payload: { m: 'yes' } }))).toMatchObject({
      code: 'needs_async',
    });
    expect(await codec.decodeAsync(text({ intent: 'notify', payload: { m: 'yes' } }))).toMatchObject({
      ok: true,
    });
    expect(await codec.decodeAsync(text({ intent: 'notify', payload: { m: 'no' } }))).toMatchObject({
      ok: false,
      code: 'invalid_payload',
      missingFields: [],
      reply: { intent: 'missing_fields' },
    });
  });

  it('gives the same frame refusals as decode', async () => {
    const codec = createCodec(pipelineIntents());
    expect(await codec.decodeAsync('{"__proto__":{}}')).toMatchObject({ code: 'json_forbidden_key' });
    expect(await codec.decodeAsync(text({ intent: 'nope' }))).toMatchObject({ code: 'unknown_intent' });
  });
});

describe('decode: invalid_payload and the missing_fields reply', () => {
  const { key_events: _k, sentiment: _s, ...twoMissing } = brief;

  it('lists the absent required fields and writes the reply back to the author', () => {
    const topology = createTopology({ maxSpawnDepth: 2 });
    topology.register({ id: 'ceo' });
    topology.spawn({ parent: 'ceo', id: 'quant_strategist' });
    topology.spawn({ parent: 'quant_strategist', id: 'finance_researcher' });
    const codec = createCodec(pipelineIntents(), { ...fakes(2_000), directory: topology });
    const result = codec.decode(text({ payload: twoMissing, request_id: 'req_4' }));
    expect(result.ok).toBe(false);
    if (result.ok || result.code !== 'invalid_payload') return;
    expect(result.missingFields).toEqual(['key_events', 'sentiment']);
    expect(result.issues.map((i) => i.pathText)).toEqual(['key_events', 'sentiment']);
    expect(result.reply).toEqual({
      id: 'env_1',
      from: 'quant_strategist',
      to: 'finance_researcher',
      intent: 'missing_fields',
      ref_task: 'quant-pipeline-2026-04-10',
      request_id: 'req_4',
      in_reply_to: 'env_in',
      payload: {
        intent: 'deliver_brief',
        missing_fields: ['key_events', 'sentiment'],
        issues: [
          { path: 'key_events', message: expect.any(String) },
          { path: 'sentiment', message: expect.any(String) },
        ],
      },
      expect_response: false,
      sent_at: 2_000,
      spawn_depth: 1,
    });
    expect(topology.check(result.reply as Envelope).ok).toBe(true);
  });

  it('counts a null field as missing, and a field of the wrong type only as an issue', () => {
    const result = createCodec(pipelineIntents(), fakes()).decode(
      text({ payload: { ...brief, macro_summary: null, sentiment: { overall: 'euphoric', score: 1 } } }),
    );
    expect(result).toMatchObject({ ok: false, code: 'invalid_payload', missingFields: ['macro_summary'] });
    if (!result.ok && result.code === 'invalid_payload') {
      expect(result.issues.map((i) => i.pathText)).toEqual(['macro_summary', 'sentiment.overall']);
      expect(JSON.stringify(result.reply)).not.toMatch(/:null[,}\]]/);
    }
  });

  it('names nested missing fields by path', () => {
    const report = {
      ...structureReport,
      structure: { ...structureReport.structure, key_levels: [{ type: 'OB' }] },
    };
    const result = createCodec(pipelineIntents(), fakes()).decode(
      text({ intent: 'deliver_structure', payload: report }),
    );
    expect(result).toMatchObject({
      code: 'invalid_payload',
      missingFields: [
        'structure.key_levels[0].price',
        'structure.key_levels[0].timeframe',
        'structure.key_levels[0].tested',
      ],
    });
  });

  it('lets the author decode the reply it receives', () => {
    const codec = createCodec(pipelineIntents(), fakes());
    const refused = codec.decode(text({ payload: twoMissing }));
    if (refused.ok || refused.code !== 'invalid_payload' || refused.reply === undefined)
      throw new Error('expected a reply');
    const received = codec.decode(codec.encode(refused.reply));
    expect(received).toEqual({ ok: true, value: refused.reply });
  });

  it('refuses a malformed missing_fields reply without replying to it, so replies never loop', () => {
    const codec = createCodec(pipelineIntents(), fakes());
    const bad = text({
      intent: 'missing_fields',
      in_reply_to: 'env_0',
      payload: { missing_fields: ['a', 3], issues: [{ path: 'a' }, 'x'] },
    });
    const result = codec.decode(bad);
    expect(result).toMatchObject({ ok: false, code: 'invalid_payload' });
    if (result.ok || result.code !== 'invalid_payload') return;
    expect(result.reply).toBeUndefined();
    expect(result.missingFields).toEqual([
      'intent',
      'issues[0].message',
      'issues[1].path',
      'issues[1].message',
    ]);
    expect(codec.decode(text({ intent: 'missing_fields', in_reply_to: 'e', payload: 'x' }))).toMatchObject({
      code: 'invalid_payload',
      missingFields: [],
    });
    expect(
      codec.decode(text({ intent: 'missing_fields', in_reply_to: 'e', payload: { intent: 'a' } })),
    ).toMatchObject({
      missingFields: ['missing_fields', 'issues'],
    });
  });

  it('refuses a missing_fields reply that names no envelope, or comes from an unknown agent', () => {
    const payload = { intent: 'deliver_brief', missing_fields: [], issues: [] };
    const codec = createCodec(pipelineIntents());
    expect(codec.decode(text({ intent: 'missing_fields', payload }))).toMatchObject({
      code: 'invalid_envelope',
      missingFields: ['in_reply_to'],
    });
    const strict = createCodec(pipelineIntents(), { directory: createTopology() });
    expect(strict.decode(text({ intent: 'missing_fields', payload, in_reply_to: 'e' }))).toMatchObject({
      code: 'unknown_agent',
    });
  });

  it('gives the reply depth 0 when there is no directory to give the recipient depth', () => {
    const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ m: z.string() }) } });
    const result = createCodec(intents, fakes()).decode(text({ intent: 'notify', payload: {} }));
    expect(result).toMatchObject({
      code: 'invalid_payload',
      missingFields: ['m'],
      reply: { spawn_depth: 0 },
    });
  });
});
