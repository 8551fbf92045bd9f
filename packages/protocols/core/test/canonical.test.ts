import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { canonicalJson, isParleyError } from '../src/index.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isParleyError(error) ? error.code : 'not a ParleyError';
  }
  return undefined;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no white space', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }], e: { z: null, y: 'x' } })).toBe(
      '{"a":[{"c":3,"d":2}],"b":1,"e":{"y":"x","z":null}}',
    );
  });

  it('writes an own __proto__ key, so a hidden nested object changes the text', () => {
    const plain = { to: 'bob', amount: 5 };
    const smuggled = JSON.parse('{"to":"bob","amount":5,"__proto__":{"amount":5000000}}') as unknown;
    expect(canonicalJson(smuggled)).toBe('{"__proto__":{"amount":5000000},"amount":5,"to":"bob"}');
    expect(canonicalJson(smuggled)).not.toBe(canonicalJson(plain));
    const deep = JSON.parse('{"a":[{"b":{"__proto__":{"c":1}}}]}') as unknown;
    expect(canonicalJson(deep)).toBe('{"a":[{"b":{"__proto__":{"c":1}}}]}');
  });

  it('keeps -0 apart from 0', () => {
    expect(canonicalJson(-0)).toBe('-0');
    expect(canonicalJson({ n: -0 })).not.toBe(canonicalJson({ n: 0 }));
    expect(JSON.parse(canonicalJson([-0]))).toEqual([-0]);
  });

  it('does not normalise Unicode in keys or strings', () => {
    const nfc = { 'caf\u00e9': 1 };
    const nfd = { 'cafe\u0301': 1 };
    expect(canonicalJson(nfc)).not.toBe(canonicalJson(nfd));
    expect(canonicalJson('\u00e9')).not.toBe(canonicalJson('e\u0301'));
  });

  it('escapes lone surrogates, so different ones stay different', () => {
    expect(canonicalJson('call_\ud800')).toBe('"call_\\ud800"');
    expect(canonicalJson('call_\ud800')).not.toBe(canonicalJson('call_\udbff'));
    expect(canonicalJson({ '\ud800': 1 })).not.toBe(canonicalJson({ '\udbff': 1 }));
  });

  it('leaves out undefined properties as JSON does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('accepts objects with a null prototype', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 2, a: 1 });
    expect(canonicalJson(bare)).toBe('{"a":1,"b":2}');
  });

  it('refuses what is not JSON with json_not_serializable and a path', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { again: cycle };
    const cases: unknown[] = [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      10n,
      () => 1,
      Symbol('s'),
      undefined,
      [undefined],
      new Date(0),
      new Map(),
      cycle,
    ];
    for (const value of cases) expect(codeOf(() => canonicalJson(value))).toBe('json_not_serializable');
    try {
      canonicalJson({ a: [1, { b: Number.NaN }] });
    } catch (error) {
      expect(isParleyError(error) && error.details.path).toBe('a[1].b');
    }
  });

  it('accepts a value seen twice that is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it('refuses nesting past its depth limit with json_too_deep instead of overflowing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5_000; i++) deep = [deep];
    expect(codeOf(() => canonicalJson(deep))).toBe('json_too_deep');
    let fine: unknown = 1;
    for (let i = 0; i < 900; i++) fine = { k: fine };
    expect(codeOf(() => canonicalJson(fine))).toBeUndefined();
  });

  test.prop([fc.jsonValue()])(
    'parses back to an equal value and matches JSON.stringify of a sorted copy',
    (value) => {
      const text = canonicalJson(value);
      expect(JSON.parse(text)).toEqual(value);
      expect(canonicalJson(JSON.parse(text))).toBe(text);
    },
  );

  test.prop([fc.jsonValue(), fc.jsonValue()])('gives equal text only to equal JSON values', (a, b) => {
    const same = canonicalJson(a) === canonicalJson(b);
    expect(same).toBe(deepEqualJson(a, b));
  });

  test.prop([fc.dictionary(fc.string(), fc.nat(), { maxKeys: 40 })])(
    'orders keys by UTF-16 code unit, as Array.prototype.sort does, at any key count',
    (record) => {
      const expected = `{${Object.keys(record)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${record[key]}`)
        .join(',')}}`;
      expect(canonicalJson(record)).toBe(expected);
      expect(canonicalJson(Object.fromEntries(Object.entries(record).reverse()))).toBe(expected);
    },
  );

  test.prop([fc.dictionary(fc.string(), fc.jsonValue())])(
    'ignores the order keys were inserted in',
    (record) => {
      const reversed = Object.fromEntries(Object.entries(record).reverse());
      expect(canonicalJson(reversed)).toBe(canonicalJson(record));
    },
  );
});

/** Strict JSON equality: -0 and 0 differ, key order does not matter. */
function deepEqualJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqualJson(item, b[i]));
  }
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => deepEqualJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
