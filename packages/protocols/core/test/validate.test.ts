import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  formatPath,
  isParleyError,
  isStandardSchema,
  validate,
  validateAsync,
  validateEither,
} from '../src/index.js';

const Brief = z.object({
  topic: z.string(),
  horizon: z.enum(['short', 'long']).optional(),
  key_levels: z.array(z.object({ price: z.number(), evidence: z.string() })),
});

const ValibotBrief = v.object({
  topic: v.string(),
  key_levels: v.array(v.object({ price: v.number(), evidence: v.string() })),
});

describe('validate with zod', () => {
  it('returns the parsed value when the input is valid', () => {
    const result = validate(Brief, { topic: 'BTC', key_levels: [{ price: 1, evidence: 'x' }] });
    expect(result).toEqual({ ok: true, value: { topic: 'BTC', key_levels: [{ price: 1, evidence: 'x' }] } });
  });

  it('lists absent required fields as dotted paths, nested ones included', () => {
    const result = validate(Brief, { key_levels: [{ price: 1 }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.missingFields).toEqual(['topic', 'key_levels[0].evidence']);
    expect(result.issues.map((i) => i.pathText)).toEqual(['topic', 'key_levels[0].evidence']);
    expect(result.issues[1]?.path).toEqual(['key_levels', 0, 'evidence']);
  });

  it('counts a null value as missing, since the protocols answer with missing_fields instead of nulls', () => {
    const result = validate(Brief, { topic: null, key_levels: [] });
    expect(result.ok ? [] : result.missingFields).toEqual(['topic']);
  });

  it('does not count a present field with the wrong type as missing', () => {
    const result = validate(Brief, { topic: 42, key_levels: 'none' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.missingFields).toEqual([]);
    expect(result.issues.map((i) => i.pathText).sort()).toEqual(['key_levels', 'topic']);
  });

  it('reports a missing parent object once, not its children', () => {
    const Nested = z.object({ auth: z.object({ token_ref: z.string() }) });
    const result = validate(Nested, {});
    expect(result.ok ? [] : result.missingFields).toEqual(['auth']);
  });

  it('does not report a root-level failure as a missing field', () => {
    const result = validate(Brief, undefined);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.missingFields).toEqual([]);
    expect(result.issues[0]?.pathText).toBe('');
  });

  it('supports conditional requirements expressed in the schema', () => {
    const Export = z
      .object({ export_audit: z.boolean(), export_format: z.enum(['json', 'csv']).optional() })
      .refine((d) => !d.export_audit || d.export_format !== undefined, {
        path: ['export_format'],
        message: 'Required when export_audit is true',
      });
    expect(validate(Export, { export_audit: false }).ok).toBe(true);
    const result = validate(Export, { export_audit: true });
    expect(result.ok ? [] : result.missingFields).toEqual(['export_format']);
  });
});

describe('validate with valibot', () => {
  it('accepts a valid value from a schema that is not zod', () => {
    const result = validate(ValibotBrief, { topic: 'ETH', key_levels: [] });
    expect(result).toEqual({ ok: true, value: { topic: 'ETH', key_levels: [] } });
  });

  it('reports the same missing fields as zod does', () => {
    const result = validate(ValibotBrief, { key_levels: [{ price: 1 }] });
    expect(result.ok ? [] : result.missingFields).toEqual(['topic', 'key_levels[0].evidence']);
  });
});

describe('validate with a hand-written Standard Schema', () => {
  it('accepts path segments given as { key } objects', () => {
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand',
        validate: () => ({ issues: [{ message: 'Required', path: [{ key: 'a' }, { key: 0 }] }] }),
      },
    };
    const result = validate(schema, { a: [] });
    expect(result.ok ? [] : result.missingFields).toEqual(['a[0]']);
  });

  it('treats issues without a path as root issues', () => {
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand',
        validate: () => ({ issues: [{ message: 'Bad' }] }),
      },
    };
    const result = validate(schema, 1);
    expect(result.ok ? undefined : result.issues).toEqual([{ path: [], pathText: '', message: 'Bad' }]);
  });

  it('throws async_schema when the schema validates asynchronously', () => {
    const schema = {
      '~standard': { version: 1 as const, vendor: 'hand', validate: async (value: unknown) => ({ value }) },
    };
    let thrown: unknown;
    try {
      validate(schema, 1);
    } catch (error) {
      thrown = error;
    }
    expect(isParleyError(thrown, 'async_schema')).toBe(true);
  });

  it('leaves no unhandled rejection behind when an async schema fails after being refused', async () => {
    const Throws = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand',
        validate: () => Promise.reject(new Error('refinement bug')),
      },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      expect(() => validate(Throws, 'x')).toThrow(expect.objectContaining({ code: 'async_schema' }));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('throws invalid_schema when given something that is not a schema', () => {
    expect(() => validate({} as never, 1)).toThrow(expect.objectContaining({ code: 'invalid_schema' }));
  });
});

describe('validateAsync', () => {
  it('awaits asynchronous refinements', async () => {
    const Name = z.string().refine(async (s) => s.length > 2, 'Too short');
    expect(await validateAsync(Name, 'abc')).toEqual({ ok: true, value: 'abc' });
    const result = await validateAsync(Name, 'ab');
    expect(result.ok ? [] : result.issues.map((i) => i.message)).toEqual(['Too short']);
  });

  it('rejects with invalid_schema when given something that is not a schema', async () => {
    await expect(validateAsync(null as never, 1)).rejects.toMatchObject({ code: 'invalid_schema' });
  });
});

describe('isStandardSchema', () => {
  it('recognises zod and valibot schemas and nothing else', () => {
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema(v.string())).toBe(true);
    for (const other of [
      null,
      undefined,
      1,
      'x',
      {},
      { '~standard': null },
      { '~standard': { version: 2 } },
    ]) {
      expect(isStandardSchema(other)).toBe(false);
    }
  });
});

describe('formatPath', () => {
  it('writes identifiers with dots, indexes with brackets and other keys quoted', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['a', 0, 'b'])).toBe('a[0].b');
    expect(formatPath([0, 'a'])).toBe('[0].a');
    expect(formatPath(['headers', 'x-id'])).toBe('headers["x-id"]');
  });
});

describe('validateEither', () => {
  it('answers at once for a schema that validates synchronously', () => {
    const result = validateEither(Brief, { key_levels: [{ price: 1 }] });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toMatchObject({ ok: false, missingFields: ['topic', 'key_levels[0].evidence'] });
    expect(validateEither(z.string(), 'a')).toEqual({ ok: true, value: 'a' });
  });

  it('returns a promise only for a schema that validates asynchronously', async () => {
    const Name = z.string().refine(async (s) => s.length > 2, 'Too short');
    const later = validateEither(Name, 'ab');
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toMatchObject({ ok: false, issues: [{ message: 'Too short' }] });
    expect(await validateEither(Name, 'abc')).toEqual({ ok: true, value: 'abc' });
  });

  it('throws invalid_schema for something that is not a Standard Schema', () => {
    expect(() => validateEither({} as never, 1)).toThrow(expect.objectContaining({ code: 'invalid_schema' }));
  });
});
