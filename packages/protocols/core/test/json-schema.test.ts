import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toJsonSchema } from '../src/index.js';

describe('toJsonSchema', () => {
  it('converts a zod schema through Standard JSON Schema', () => {
    const schema = toJsonSchema(z.object({ name: z.string(), age: z.number().optional() }));
    expect(schema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'number' } },
      required: ['name'],
    });
    expect(schema.$schema).toContain('2020-12');
  });

  it('describes the output or the input, and another draft, when asked', () => {
    const Count = z
      .string()
      .transform((s) => s.length)
      .pipe(z.number());
    expect(toJsonSchema(Count, { io: 'input' })).toMatchObject({ type: 'string' });
    expect(
      toJsonSchema(z.object({ a: z.string().default('x') }), { io: 'output', target: 'draft-07' }),
    ).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      required: ['a'],
    });
  });

  it('refuses a schema whose library lacks the extension', () => {
    expect(() => toJsonSchema(v.string())).toThrow(
      expect.objectContaining({ code: 'schema_not_convertible', details: { vendor: 'valibot' } }),
    );
  });

  it('refuses a zod type that JSON Schema cannot express', () => {
    expect(() => toJsonSchema(z.object({ at: z.date() }))).toThrow(
      expect.objectContaining({ code: 'schema_not_convertible' }),
    );
  });
});
