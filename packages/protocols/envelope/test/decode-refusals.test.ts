import { fc, test } from '@fast-check/vitest';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type AgentInfo,
  createCodec,
  createTopology,
  DECODE_REFUSAL_CODES,
  defineIntents,
  type DecodeRefusal,
} from '../src/index.js';
import { brief, fakes, pipelineIntents, text, wire } from './helpers.js';

const codec = createCodec(pipelineIntents(), fakes());
const refusal = (input: string): DecodeRefusal => {
  const result = codec.decode(input);
  if (result.ok) throw new Error('expected a refusal');
  return result;
};

describe('decode: hostile JSON', () => {
  it('refuses text that is not JSON, and a value that is not a string, with json_syntax', () => {
    expect(refusal('{"id": ').code).toBe('json_syntax');
    expect(refusal(42 as unknown as string).code).toBe('json_syntax');
  });

  it('refuses an oversized document with json_too_large before parsing it', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(refusal(text({ payload: { ...brief, macro_summary: 'x'.repeat(1024 * 1024) } })).code).toBe(
      'json_too_large',
    );
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    const small = createCodec(pipelineIntents(), { limits: { maxBytes: 100 } });
    expect(small.decode(text())).toMatchObject({ ok: false, code: 'json_too_large' });
  });

  it('refuses a deeply nested payload with json_too_deep and says where', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const result = refusal(text({ payload: { ...brief, data_sources: deep } }));
    expect(result.code).toBe('json_too_deep');
    expect(result.code === 'json_too_deep' && result.path).toMatch(/^payload\.data_sources(\.d)+$/);
  });

  it('refuses a document with too many values with json_too_many_nodes', () => {
    const many = createCodec(pipelineIntents(), { limits: { maxNodes: 20 } });
    expect(many.decode(text())).toMatchObject({ ok: false, code: 'json_too_many_nodes' });
  });

  it('refuses __proto__, constructor and prototype keys at any depth without polluting anything', () => {
    const proto = refusal('{"payload":{"__proto__":{"polluted":true}},"id":"e"}');
    expect(proto).toMatchObject({ code: 'json_forbidden_key', path: 'payload.__proto__' });
    expect(refusal(text({ payload: JSON.parse('{"constructor":{"prototype":{}}}') })).code).toBe(
      'json_forbidden_key',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test.prop([fc.string()])('never throws on arbitrary text', (input) => {
    expect(codec.decode(input).ok).toBe(false);
  });

  test.prop([fc.jsonValue()])('never throws on arbitrary JSON, and never accepts a non-envelope', (value) => {
    expect(codec.decode(JSON.stringify(value)).ok).toBe(false);
  });

  test.prop([
    fc.record({
      id: fc.anything(),
      from: fc.anything(),
      intent: fc.constantFrom('assign_task', 'nope'),
      payload: fc.anything(),
    }),
  ])('never throws on envelopes with wrong types', (value) => {
    const input = JSON.stringify({ ...wire(), ...value });
    if (input !== undefined) expect(() => codec.decode(input)).not.toThrow();
  });
});

describe('decode: invalid_envelope', () => {
  it('refuses a root that is not an object', () => {
    expect(refusal('[1,2]')).toMatchObject({
      code: 'invalid_envelope',
      issues: [{ path: [], pathText: '' }],
    });
    expect(refusal('"notify"').code).toBe('invalid_envelope');
    expect(refusal('null').code).toBe('invalid_envelope');
  });

  it('lists every absent required frame field in missingFields', () => {
    const result = refusal(JSON.stringify({ intent: 'deliver_brief', payload: brief }));
    expect(result.code === 'invalid_envelope' && result.missingFields).toEqual([
      'id',
      'from',
      'to',
      'sent_at',
      'spawn_depth',
    ]);
  });

  it('reports each field of the wrong type, and never counts a wrong type as missing', () => {
    const result = refusal(
      text({
        from: 5,
        ref_task: null,
        expect_response: 'yes',
        sent_at: -1,
        spawn_depth: 9,
        payload: undefined,
      }),
    );
    expect(result.code).toBe('invalid_envelope');
    if (result.code !== 'invalid_envelope') return;
    expect(result.issues.map((i) => i.pathText)).toEqual([
      'from',
      'ref_task',
      'payload',
      'expect_response',
      'sent_at',
      'spawn_depth',
    ]);
    expect(result.missingFields).toEqual(['payload']);
    expect(result.message).toContain('from: Expected a string, got number');
  });

  it('refuses unknown top-level fields, empty strings and overlong strings', () => {
    expect(refusal(text({ admin: true })).code).toBe('invalid_envelope');
    expect(refusal(text({ to: '' })).code).toBe('invalid_envelope');
    expect(refusal(text({ id: 'x'.repeat(257) })).code).toBe('invalid_envelope');
    expect(refusal(text({ spawn_depth: 1.5 })).code).toBe('invalid_envelope');
    expect(refusal(text({ sent_at: 'yesterday' })).code).toBe('invalid_envelope');
  });
});

describe('decode: unknown_intent', () => {
  it('refuses an intent the registry lacks, including Object.prototype names', () => {
    for (const intent of ['wipe_disk', 'toString', 'hasOwnProperty', '__defineGetter__']) {
      const result = refusal(text({ intent }));
      expect(result).toMatchObject({ code: 'unknown_intent', envelope: { intent } });
    }
  });
});

describe('decode: directions', () => {
  function tree() {
    const topology = createTopology({ maxSpawnDepth: 2 });
    topology.register({ id: 'ceo', role: 'ceo' });
    topology.spawn({ parent: 'ceo', id: 'quant_strategist' });
    topology.spawn({ parent: 'quant_strategist', id: 'finance_researcher' });
    topology.spawn({ parent: 'quant_strategist', id: 'rev_1', role: 'reviewer' });
    return createCodec(pipelineIntents(), { ...fakes(), directory: topology });
  }

  it('accepts child → parent for an upward intent and parent → child for a downward one', () => {
    const codec = tree();
    expect(codec.decode(text()).ok).toBe(true);
    const assign = text({
      intent: 'assign_task',
      from: 'quant_strategist',
      to: 'finance_researcher',
      payload: { task: 't' },
    });
    expect(codec.decode(assign).ok).toBe(true);
  });

  it('refuses an upward intent sent downward with wrong_direction', () => {
    const down = text({ from: 'quant_strategist', to: 'finance_researcher', spawn_depth: 1 });
    expect(tree().decode(down)).toMatchObject({ ok: false, code: 'wrong_direction' });
  });

  it('refuses a downward intent sent upward with wrong_direction', () => {
    const up = text({ intent: 'assign_task', payload: { task: 't' } });
    expect(tree().decode(up)).toMatchObject({ ok: false, code: 'wrong_direction' });
  });

  it('checks role rules against the roles the directory holds', () => {
    const codec = tree();
    const verdict = { intent: 'review_verdict', payload: { verdict: 'pass' }, to: 'quant_strategist' };
    expect(codec.decode(text({ ...verdict, from: 'rev_1' })).ok).toBe(true);
    expect(codec.decode(text({ ...verdict, from: 'finance_researcher' }))).toMatchObject({
      code: 'wrong_direction',
      message: expect.stringContaining('must come from a reviewer'),
    });
    const escalate = { intent: 'escalate', payload: { reason: 'blocked' }, from: 'quant_strategist' };
    expect(codec.decode(text({ ...escalate, to: 'ceo' })).ok).toBe(true);
    expect(codec.decode(text({ ...escalate, to: 'rev_1' }))).toMatchObject({ code: 'wrong_direction' });
  });

  it('takes an agent id as its role when there is no directory', () => {
    const escalate = { intent: 'escalate', payload: { reason: 'blocked' }, from: 'quant_strategist' };
    expect(codec.decode(text({ ...escalate, to: 'ceo' })).ok).toBe(true);
    expect(codec.decode(text({ ...escalate, to: 'cfo' }))).toMatchObject({ code: 'wrong_direction' });
  });

  it('refuses a sender or recipient the directory does not know with unknown_agent', () => {
    const codec = tree();
    expect(codec.decode(text({ from: 'ghost' }))).toMatchObject({ code: 'unknown_agent' });
    expect(codec.decode(text({ to: 'ghost' }))).toMatchObject({ code: 'unknown_agent' });
  });

  it('asks a host-supplied directory about both parties', () => {
    const agent = vi.fn(
      (id: string): AgentInfo => ({ id, role: id, parent: null, depth: 0, kind: 'agent', startedAt: 0 }),
    );
    const any = defineIntents({ notify: { direction: 'any', payload: z.object({ m: z.string() }) } });
    const result = createCodec(any, { directory: { agent } }).decode(
      text({ intent: 'notify', payload: { m: 'x' } }),
    );
    expect(result.ok).toBe(true);
    expect(agent.mock.calls.map(([id]) => id)).toEqual(['finance_researcher', 'quant_strategist']);
  });
});

describe('decode: every refusal code', () => {
  it('has a test above for each code of DECODE_REFUSAL_CODES', () => {
    // The codes the other files produce: unresolved_ref, needs_async and invalid_payload are in payloads.test.ts,
    // unknown_artifact in artifacts.test.ts.
    expect(DECODE_REFUSAL_CODES).toEqual([
      'json_syntax',
      'json_too_large',
      'json_too_deep',
      'json_too_many_nodes',
      'json_forbidden_key',
      'invalid_envelope',
      'unknown_intent',
      'unknown_agent',
      'wrong_direction',
      'unresolved_ref',
      'needs_async',
      'unknown_artifact',
      'invalid_payload',
    ]);
  });
});
