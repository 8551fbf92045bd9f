import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON_LIMITS, isParleyError, parseJson, safeParseJson, stringifyJson } from '../src/index.js';

describe('safeParseJson', () => {
  it('parses a valid document', () => {
    expect(safeParseJson('{"a":[1,"x",null,true]}')).toEqual({
      ok: true,
      value: { a: [1, 'x', null, true] },
    });
  });

  it('refuses malformed JSON with json_syntax', () => {
    const result = safeParseJson('{"a":');
    expect(result).toMatchObject({ ok: false, code: 'json_syntax' });
  });

  it('refuses a non-string with json_syntax instead of throwing', () => {
    expect(safeParseJson(42 as never)).toMatchObject({ ok: false, code: 'json_syntax' });
  });

  it('refuses a document over maxBytes before parsing it', () => {
    expect(safeParseJson(`"${'a'.repeat(20)}"`, { maxBytes: 10 })).toMatchObject({
      ok: false,
      code: 'json_too_large',
    });
  });

  it('counts UTF-8 bytes, not UTF-16 units', () => {
    const text = `"${'确'.repeat(4)}"`; // 6 characters, 14 bytes
    expect(safeParseJson(text, { maxBytes: 13 })).toMatchObject({ ok: false, code: 'json_too_large' });
    expect(safeParseJson(text, { maxBytes: 14 }).ok).toBe(true);
    const emoji = '"😀"'; // a surrogate pair: 4 bytes plus 2 quotes
    expect(safeParseJson(emoji, { maxBytes: 5 })).toMatchObject({ ok: false, code: 'json_too_large' });
    expect(safeParseJson(emoji, { maxBytes: 6 }).ok).toBe(true);
    expect(safeParseJson('"é"', { maxBytes: 4 }).ok).toBe(true);
  });

  it('refuses nesting deeper than maxDepth and names where', () => {
    const result = safeParseJson('{"a":{"b":[{"c":1}]}}', { maxDepth: 3 });
    expect(result).toMatchObject({ ok: false, code: 'json_too_deep', path: 'a.b[0]' });
    expect(safeParseJson('{"a":{"b":[{"c":1}]}}', { maxDepth: 4 }).ok).toBe(true);
  });

  it('does not count scalars as a level of nesting', () => {
    expect(safeParseJson('{"a":{"b":1}}', { maxDepth: 2 }).ok).toBe(true);
  });

  it('refuses a very deep document without a stack overflow', () => {
    const depth = 100_000;
    const text = '['.repeat(depth) + ']'.repeat(depth);
    const result = safeParseJson(text, { maxBytes: 1e6 });
    expect(result).toMatchObject({ ok: false, code: 'json_too_deep' });
  });

  it('refuses documents with more values than maxNodes', () => {
    expect(safeParseJson('[1,2,3,4]', { maxNodes: 4 })).toMatchObject({
      ok: false,
      code: 'json_too_many_nodes',
    });
    expect(safeParseJson('[1,2,3]', { maxNodes: 4 }).ok).toBe(true);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s at any depth', (key) => {
    const result = safeParseJson(`{"a":[{"b":{"${key}":{"polluted":true}}}]}`);
    expect(result).toMatchObject({ ok: false, code: 'json_forbidden_key', path: `a[0].b.${key}` });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a forbidden key at the root', () => {
    expect(safeParseJson('{"__proto__":1}')).toMatchObject({
      ok: false,
      code: 'json_forbidden_key',
      path: '__proto__',
    });
  });

  it('accepts a replaced list of forbidden keys', () => {
    expect(safeParseJson('{"constructor":1}', { forbiddenKeys: ['$where'] }).ok).toBe(true);
    expect(safeParseJson('{"$where":1}', { forbiddenKeys: ['$where'] })).toMatchObject({
      code: 'json_forbidden_key',
    });
  });

  it('uses safe defaults', () => {
    expect(DEFAULT_JSON_LIMITS).toMatchObject({ maxBytes: 1_048_576, maxDepth: 64, maxNodes: 100_000 });
  });
});

describe('parseJson', () => {
  it('returns the value or throws a CoreError with the refusal code and path', () => {
    expect(parseJson('[1]')).toEqual([1]);
    let thrown: unknown;
    try {
      parseJson('{"x":{"__proto__":{}}}');
    } catch (error) {
      thrown = error;
    }
    expect(isParleyError(thrown, 'json_forbidden_key')).toBe(true);
    expect((thrown as { details: unknown }).details).toEqual({ path: 'x.__proto__' });
    expect(() => parseJson('nope')).toThrow(expect.objectContaining({ code: 'json_syntax', details: {} }));
  });
});

describe('stringifyJson', () => {
  it('serialises plain JSON values, skipping undefined properties as JSON does', () => {
    expect(stringifyJson({ a: 1, b: [true, null, 'x'], c: undefined, d: Object.create(null) })).toBe(
      '{"a":1,"b":[true,null,"x"],"d":{}}',
    );
  });

  it.each([
    ['a function', { f: () => 1 }, 'f'],
    ['NaN', { n: Number.NaN }, 'n'],
    ['a bigint', [1n], '[0]'],
    ['a Date', { at: new Date(0) }, 'at'],
    ['a Map', { m: new Map() }, 'm'],
    ['undefined in an array', [undefined], '[0]'],
    ['undefined at the root', undefined, ''],
  ])('refuses %s with json_not_serializable', (_, value, path) => {
    expect(() => stringifyJson(value)).toThrow(
      expect.objectContaining({ code: 'json_not_serializable', details: { path } }),
    );
  });

  it('refuses a cycle', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stringifyJson(cyclic)).toThrow(expect.objectContaining({ code: 'json_not_serializable' }));
  });

  it('writes a value nested deeper than its fast check goes, as JSON.stringify does', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 300; i++) deep = i % 2 === 0 ? { d: deep } : [deep];
    expect(stringifyJson(deep)).toBe(JSON.stringify(deep));
  });

  it('refuses a cycle deep down and names where it closes', () => {
    const inner: Record<string, unknown> = {};
    const root = { a: { b: inner } };
    inner.back = root.a;
    expect(() => stringifyJson(root)).toThrow(
      expect.objectContaining({ code: 'json_not_serializable', details: { path: 'a.b.back' } }),
    );
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(stringifyJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it.each([
    ['too large', { text: 'x'.repeat(100) }, { maxBytes: 64 }, 'json_too_large'],
    ['too deep', { a: { b: { c: 1 } } }, { maxDepth: 2 }, 'json_too_deep'],
    ['too many nodes', [1, 2, 3, 4], { maxNodes: 3 }, 'json_too_many_nodes'],
    ['a forbidden key', JSON.parse('{"__proto__":1}'), {}, 'json_forbidden_key'],
  ])('with limits, refuses a value %s as parseJson would refuse its text', (_, value, limits, code) => {
    expect(() => stringifyJson(value, limits)).toThrow(expect.objectContaining({ code }));
    expect(stringifyJson(value)).toBe(JSON.stringify(value)); // without limits it is written
  });

  it('with limits, returns the text of a value within them, and still refuses what is not JSON', () => {
    expect(stringifyJson({ a: [1, 2] }, { maxDepth: 3, maxNodes: 4 })).toBe('{"a":[1,2]}');
    expect(() => stringifyJson({ at: new Date(0) }, {})).toThrow(
      expect.objectContaining({ code: 'json_not_serializable', details: { path: 'at' } }),
    );
  });
});

describe('safeParseJson limits (issue 19 hunt)', () => {
  it('[STORE-8] counts a lone high surrogate before a 3-byte character as 3 + 3 bytes, so maxBytes holds', () => {
    const text = `"${'\ud800确'.repeat(200)}"`; // 1 202 bytes in UTF-8 (U+FFFD for each lone half), 402 code units
    expect(new TextEncoder().encode(text).length).toBe(1_202);
    expect(safeParseJson(text, { maxBytes: 1_000 })).toMatchObject({ ok: false, code: 'json_too_large' });
    expect(safeParseJson(text, { maxBytes: 1_202 }).ok).toBe(true);
  });

  it('[STORE-8] refuses every document when a limit is NaN, instead of none', () => {
    expect(safeParseJson('{}', { maxBytes: Number.NaN })).toMatchObject({ code: 'json_too_large' });
    expect(safeParseJson('[1]', { maxNodes: Number.NaN })).toMatchObject({ code: 'json_too_many_nodes' });
    expect(safeParseJson('{"a":{}}', { maxDepth: Number.NaN })).toMatchObject({
      code: 'json_too_deep',
      path: '',
    });
  });
});
