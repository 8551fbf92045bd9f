import { fc, it as fcIt } from '@fast-check/vitest';
import {
  DEFAULT_JSON_LIMITS,
  createDeadlineQueue,
  createManualClock,
  assertTimeoutMs,
  generateId,
  safeParseJson,
} from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { cite } from './catalogue.js';
import { runs } from './config.js';

/** The reference predicate: what safeParseJson must accept, written the slow, obvious way. */
function reference(text: string): 'ok' | string {
  if (new TextEncoder().encode(text).length > DEFAULT_JSON_LIMITS.maxBytes) return 'json_too_large';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'json_syntax';
  }
  let nodes = 0;
  let refusal: string | undefined;
  const visit = (v: unknown, depth: number): void => {
    if (refusal) return;
    nodes++;
    if (v === null || typeof v !== 'object') return;
    if (depth > DEFAULT_JSON_LIMITS.maxDepth) refusal ??= 'json_too_deep';
    const entries = Array.isArray(v) ? v.map((x) => [undefined, x] as const) : Object.entries(v);
    for (const [key, child] of entries) {
      if (key !== undefined && (DEFAULT_JSON_LIMITS.forbiddenKeys as readonly string[]).includes(key))
        refusal ??= 'json_forbidden_key';
      visit(child, depth + 1);
    }
  };
  visit(value, 1);
  if (nodes > DEFAULT_JSON_LIMITS.maxNodes) return 'json_too_many_nodes';
  return refusal ?? 'ok';
}

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
afterEach(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('safeParseJson under fuzzing', () => {
  fcIt.prop([fc.json({ depthSize: 'medium' })], { numRuns: runs(300) })(
    `${cite('JSON-06')} accepts exactly what the reference predicate accepts`,
    (text) => {
      const result = safeParseJson(text);
      const expected = reference(text);
      expect(result.ok ? 'ok' : result.code).toBe(expected);
      if (result.ok) expect(result.value).toEqual(JSON.parse(text));
    },
  );

  fcIt.prop([fc.anything({ withObjectString: true, withNullPrototype: true, withSparseArray: true })], {
    numRuns: runs(300),
  })(`${cite('JSON-06')} agrees with the reference on serialised arbitrary values`, (value) => {
    const text = JSON.stringify(value);
    if (text === undefined) return;
    const result = safeParseJson(text);
    expect(result.ok ? 'ok' : result.code).toBe(reference(text));
  });

  fcIt.prop([fc.string({ unit: 'binary' })], { numRuns: runs(500) })(
    `${cite('JSON-07')} never throws on arbitrary strings`,
    (text) => {
      const result = safeParseJson(text);
      expect(typeof result.ok).toBe('boolean');
    },
  );

  fcIt.prop([fc.array(fc.constantFrom('a', 'é', '确', '😀'), { maxLength: 40 }), fc.nat({ max: 200 })], {
    numRuns: runs(300),
  })(`${cite('JSON-08')} counts UTF-8 bytes exactly at the cap`, (chars, maxBytes) => {
    const text = JSON.stringify(chars.join(''));
    const bytes = new TextEncoder().encode(text).length;
    const result = safeParseJson(text, { maxBytes });
    expect(result.ok).toBe(bytes <= maxBytes);
  });
});

describe('safeParseJson with crafted hostile documents', () => {
  it(`${cite('JSON-01')} refuses 50 MB before parsing`, () => {
    const text = `"${'a'.repeat(50 * 1024 * 1024)}"`;
    expect(safeParseJson(text)).toMatchObject({ ok: false, code: 'json_too_large' });
  });

  it(`${cite('JSON-02')} refuses nesting 10^6 deep without overflowing the stack`, () => {
    const depth = 1_000_000;
    const text = '['.repeat(depth) + ']'.repeat(depth);
    expect(safeParseJson(text, { maxBytes: 4 * depth })).toMatchObject({ ok: false, code: 'json_too_deep' });
  });

  it(`${cite('JSON-03')} refuses __proto__ at every depth from 1 to 50 and names the path`, () => {
    for (let depth = 1; depth <= 50; depth++) {
      let text = '{"__proto__":{"polluted":true}}';
      let path = '__proto__';
      for (let i = 1; i < depth; i++) {
        text = `{"k":${text}}`;
        path = `k.${path}`;
      }
      expect(safeParseJson(text)).toEqual(
        expect.objectContaining({ ok: false, code: 'json_forbidden_key', path }),
      );
    }
  });

  it(`${cite('JSON-04')} refuses constructor and prototype keys inside arrays`, () => {
    expect(safeParseJson('[{"constructor":{"prototype":{"polluted":1}}}]')).toMatchObject({
      code: 'json_forbidden_key',
      path: '[0].constructor',
    });
    expect(safeParseJson('{"a":[1,{"prototype":2}]}')).toMatchObject({
      code: 'json_forbidden_key',
      path: 'a[1].prototype',
    });
  });

  it(`${cite('JSON-05')} refuses an object with 10^5 keys under the default node limit`, () => {
    const text = JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])));
    expect(safeParseJson(text, { maxBytes: 10 * 1024 * 1024 })).toMatchObject({
      ok: false,
      code: 'json_too_many_nodes',
    });
  });
});

describe('ids and deadlines', () => {
  it(`${cite('IDS-01')} generates 100k distinct URL-safe ids`, () => {
    const ids = new Set<string>();
    for (let i = 0; i < 100_000; i++) ids.add(generateId());
    expect(ids.size).toBe(100_000);
    for (const id of ids) if (!/^[A-Za-z0-9_-]{21}$/.test(id)) throw new Error(`bad id ${id}`);
  });

  it(`${cite('LIFE-01')} refuses insane timeouts at registration`, () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 0, -5, 2 ** 31]) {
      expect(() => assertTimeoutMs(value)).toThrow(expect.objectContaining({ code: 'invalid_timeout' }));
    }
  });

  fcIt.prop(
    [fc.array(fc.tuple(fc.nat({ max: 10_000 }), fc.boolean()), { maxLength: 200 }), fc.nat({ max: 12_000 })],
    {
      numRuns: runs(200),
    },
  )(
    `${cite('LIFE-02')} runs each kept deadline once, never a removed one, and leaves no timer`,
    (plan, advanceBy) => {
      const clock = createManualClock();
      const queue = createDeadlineQueue({ clock });
      const calls = new Map<number, number>();
      const handles = plan.map(([at], i) => queue.add(at, () => calls.set(i, (calls.get(i) ?? 0) + 1)));
      plan.forEach(([, remove], i) => {
        if (remove) queue.remove(handles[i] as (typeof handles)[number]);
      });
      expect(clock.pendingTimers()).toBeLessThanOrEqual(1);
      clock.advance(advanceBy);
      clock.runAll();
      expect(plan.map((_, i) => calls.get(i) ?? 0)).toEqual(plan.map(([, remove]) => (remove ? 0 : 1)));
      expect(queue.size).toBe(0);
      expect(clock.pendingTimers()).toBe(0);
    },
  );
});
