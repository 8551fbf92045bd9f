import { fc, it as fcIt } from '@fast-check/vitest';
import { DEFAULT_ENVELOPE_LIMITS, defineIntents, safeParseEnvelope } from '@parley/envelope';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { cite } from './catalogue.js';
import { runs } from './config.js';

const intents = defineIntents({
  notify: { direction: 'any', payload: z.object({ message: z.string() }) },
  ping: { direction: 'any', payload: z.unknown() },
});

const FRAME_KEYS = new Set([
  'id',
  'from',
  'to',
  'intent',
  'ref_task',
  'payload',
  'expect_response',
  'request_id',
  'in_reply_to',
  'sent_at',
  'spawn_depth',
]);
const LIMITS = DEFAULT_ENVELOPE_LIMITS;

/**
 * The reference predicate, written the slow, obvious way: what safeParseEnvelope may accept.
 * It returns 'ok' or the family of refusal ('json' for any JSON-level refusal, 'frame', 'intent',
 * 'payload'), so an accepted input the reference refuses is caught.
 */
function reference(text: string): 'ok' | 'json' | 'frame' | 'intent' | 'payload' {
  if (new TextEncoder().encode(text).length > LIMITS.maxBytes) return 'json';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'json';
  }
  let nodes = 0;
  let bad = false;
  const visit = (v: unknown, depth: number): void => {
    nodes++;
    if (v === null || typeof v !== 'object') return;
    if (depth > LIMITS.maxDepth) bad = true;
    for (const [key, child] of Object.entries(v)) {
      if (!Array.isArray(v) && (LIMITS.forbiddenKeys as readonly string[]).includes(key)) bad = true;
      visit(child, depth + 1);
    }
  };
  visit(value, 1);
  if (bad || nodes > LIMITS.maxNodes) return 'json';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'frame';
  const v = value as Record<string, unknown>;
  if (Object.keys(v).some((k) => !FRAME_KEYS.has(k))) return 'frame';
  const str = (x: unknown, required: boolean): boolean =>
    x === undefined ? !required : typeof x === 'string' && x.length >= 1 && x.length <= 256;
  if (!str(v.id, true) || !str(v.from, true) || !str(v.to, true) || !str(v.intent, true)) return 'frame';
  if (!str(v.ref_task, false) || !str(v.request_id, false) || !str(v.in_reply_to, false)) return 'frame';
  if (!('payload' in v)) return 'frame';
  if (v.expect_response !== undefined && typeof v.expect_response !== 'boolean') return 'frame';
  if (typeof v.sent_at !== 'number' || !Number.isSafeInteger(v.sent_at) || v.sent_at < 0) return 'frame';
  if (typeof v.spawn_depth !== 'number' || !Number.isInteger(v.spawn_depth)) return 'frame';
  if (v.spawn_depth < 0 || v.spawn_depth > 5) return 'frame';
  if (v.intent === 'missing_fields') return 'frame'; // needs in_reply_to, which the fuzzed frames never carry
  if (v.intent !== 'notify' && v.intent !== 'ping') return 'intent';
  if (v.intent === 'ping') return 'ok';
  const p = v.payload as Record<string, unknown> | null;
  return typeof p === 'object' && p !== null && !Array.isArray(p) && typeof p.message === 'string'
    ? 'ok'
    : 'payload';
}

function family(code: string): 'json' | 'frame' | 'intent' | 'payload' | 'other' {
  if (code.startsWith('json_')) return 'json';
  if (code === 'invalid_envelope') return 'frame';
  if (code === 'unknown_intent' || code === 'wrong_direction') return 'intent';
  if (code === 'invalid_payload') return 'payload';
  return 'other';
}

function decode(text: string): ReturnType<typeof safeParseEnvelope<typeof intents>> {
  try {
    return safeParseEnvelope(intents, text);
  } catch (error) {
    throw new Error(`safeParseEnvelope threw on ${JSON.stringify(text).slice(0, 200)}: ${String(error)}`);
  }
}

function expectAgrees(text: string): void {
  const result = decode(text);
  const expected = reference(text);
  if (result.ok) expect(expected).toBe('ok');
  else expect(family(result.code)).toBe(expected);
}

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
afterEach(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype.toString.call([])).toBe('[object Array]');
});

/** A frame whose fields are sometimes right, sometimes wrong, around a fuzzed payload. */
const frame = fc.record(
  {
    id: fc.oneof(fc.constant('e1'), fc.string({ maxLength: 3 }), fc.integer()),
    from: fc.constantFrom('a', 'b', ''),
    to: fc.constantFrom('a', 'b'),
    intent: fc.constantFrom('notify', 'ping', 'unknown', '__proto__', 'constructor', 'missing_fields'),
    payload: fc.oneof(
      fc.record({ message: fc.oneof(fc.string(), fc.integer()) }),
      fc.jsonValue({ maxDepth: 4 }),
      fc.constant(JSON.parse('{"message":"hi","__proto__":{"polluted":true}}') as unknown),
    ),
    sent_at: fc.oneof(fc.nat(), fc.constant(-1), fc.double()),
    spawn_depth: fc.oneof(fc.integer({ min: -1, max: 7 }), fc.constant(1.5)),
    expect_response: fc.oneof(fc.boolean(), fc.constant('yes')),
    ref_task: fc.string({ maxLength: 3 }),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['id', 'from', 'to', 'intent', 'payload'] },
);

describe('safeParseEnvelope under fuzzing', () => {
  fcIt.prop([fc.json({ depthSize: 'medium' })], { numRuns: runs(400) })(
    `${cite('ENV-01')} accepts fc.json text only when the reference predicate does, and never throws`,
    (text) => expectAgrees(text),
  );

  fcIt.prop([fc.anything({ withObjectString: true, withNullPrototype: true, withSparseArray: true })], {
    numRuns: runs(300),
  })(`${cite('ENV-02')} agrees with the reference on serialised fc.anything values`, (value) => {
    const text = JSON.stringify(value);
    if (text === undefined) return;
    expectAgrees(text);
  });

  fcIt.prop([frame], { numRuns: runs(800) })(
    `${cite('ENV-08')} accepts a fuzzed frame only when the reference accepts it, and then with its payload intact`,
    (record) => {
      const text = JSON.stringify(record);
      const result = decode(text);
      expectAgrees(text);
      if (result.ok) {
        expect(result.value.intent).toBe(record.intent);
        expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
      }
    },
  );

  fcIt.prop([fc.string({ unit: 'binary' })], { numRuns: runs(500) })(
    `${cite('ENV-07')} never throws on arbitrary strings, lone surrogates included`,
    (text) => {
      const result = decode(text);
      expect(result.ok).toBe(false);
    },
  );

  fcIt.prop([fc.string({ unit: 'binary', minLength: 1, maxLength: 200 })], { numRuns: runs(300) })(
    `${cite('ENV-07')} never throws on a valid frame with arbitrary string fields`,
    (s) => {
      const text = JSON.stringify({
        id: s,
        from: s,
        to: s,
        intent: s,
        payload: s,
        sent_at: 0,
        spawn_depth: 0,
      });
      expectAgrees(text);
    },
  );
});

describe('safeParseEnvelope with crafted hostile documents', () => {
  const good = { id: 'e1', from: 'a', to: 'b', intent: 'notify', sent_at: 0, spawn_depth: 0 };

  it(`${cite('ENV-03')} refuses a payload nested 10^6 deep without overflowing the stack`, () => {
    const depth = 1_000_000;
    const text = `{"id":"e1","from":"a","to":"b","intent":"ping","sent_at":0,"spawn_depth":0,"payload":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expect(safeParseEnvelope(intents, text, { limits: { maxBytes: 4 * depth } })).toMatchObject({
      ok: false,
      code: 'json_too_deep',
    });
    expect(decode('['.repeat(depth))).toMatchObject({ ok: false });
  });

  it(`${cite('ENV-04')} refuses 50 MB before parsing it`, () => {
    const text = JSON.stringify({ ...good, payload: { message: 'a'.repeat(50 * 1024 * 1024) } });
    // A byte count, not a parse: JSON.parse is never handed the text.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(decode(text)).toMatchObject({ ok: false, code: 'json_too_large' });
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it(`${cite('ENV-05')} refuses __proto__ at every depth of the payload, and the envelope level`, () => {
    for (let depth = 0; depth <= 30; depth++) {
      let inner = '{"__proto__":{"polluted":true},"message":"x"}';
      for (let i = 0; i < depth; i++) inner = `{"k":${inner}}`;
      const text = `{"id":"e1","from":"a","to":"b","intent":"ping","sent_at":0,"spawn_depth":0,"payload":${inner}}`;
      expect(decode(text)).toMatchObject({ ok: false, code: 'json_forbidden_key' });
    }
    expect(
      decode(`{"__proto__":{"polluted":true},${JSON.stringify(good).slice(1, -1)},"payload":{}}`),
    ).toMatchObject({ ok: false, code: 'json_forbidden_key' });
    for (const key of ['constructor', 'prototype']) {
      const text = JSON.stringify({
        ...good,
        payload: { message: 'x', nested: [{ [key]: { polluted: 1 } }] },
      });
      expect(decode(text)).toMatchObject({ ok: false, code: 'json_forbidden_key' });
    }
  });

  it(`${cite('ENV-06')} refuses a payload with 10^5 keys under the node limit`, () => {
    const payload = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    const text = JSON.stringify({ ...good, intent: 'ping', payload });
    expect(safeParseEnvelope(intents, text, { limits: { maxBytes: 10 * 1024 * 1024 } })).toMatchObject({
      ok: false,
      code: 'json_too_many_nodes',
    });
  });

  it(`${cite('ENV-09')} refuses frames with unknown keys or wrong field types as invalid_envelope`, () => {
    const cases: unknown[] = [
      { ...good, payload: { message: 'x' }, extra: 1 },
      { ...good, payload: { message: 'x' }, sent_at: -1 },
      { ...good, payload: { message: 'x' }, sent_at: 1.5 },
      { ...good, payload: { message: 'x' }, spawn_depth: 6 },
      { ...good, payload: { message: 'x' }, id: '' },
      { ...good, payload: { message: 'x' }, id: 'x'.repeat(257) },
      { ...good, payload: { message: 'x' }, expect_response: 'yes' },
      { ...good },
      [good],
      'envelope',
      null,
    ];
    for (const value of cases) {
      expect(decode(JSON.stringify(value))).toMatchObject({ ok: false, code: 'invalid_envelope' });
    }
    expect(decode(JSON.stringify({ ...good, payload: { message: 'x' } }))).toMatchObject({ ok: true });
  });
});
