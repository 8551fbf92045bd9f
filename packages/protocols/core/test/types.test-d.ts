import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createEmitter,
  type InferOutput,
  type JsonValue,
  type StandardSchemaV1,
  type ValidationResult,
  validate,
} from '../src/index.js';

describe('validate types', () => {
  it('infers the output type of a zod schema', () => {
    const schema = z.object({ name: z.string(), age: z.number().optional() });
    const result = validate(schema, {});
    expectTypeOf(result).toEqualTypeOf<ValidationResult<{ name: string; age?: number | undefined }>>();
    if (result.ok) expectTypeOf(result.value.name).toEqualTypeOf<string>();
    else expectTypeOf(result.missingFields).toEqualTypeOf<readonly string[]>();
  });

  it('infers the output type of a valibot schema', () => {
    const schema = v.object({ n: v.number() });
    expectTypeOf<InferOutput<typeof schema>>().toEqualTypeOf<{ n: number }>();
    expectTypeOf(schema).toMatchTypeOf<StandardSchemaV1>();
  });

  it('uses the transformed output, not the input', () => {
    const schema = z.string().transform((s) => s.length);
    const result = validate(schema, 'abc');
    if (result.ok) expectTypeOf(result.value).toEqualTypeOf<number>();
  });

  it('rejects values that are not schemas', () => {
    // @ts-expect-error: a plain object is not a Standard Schema
    validate({ parse: () => 1 }, 1);
  });
});

describe('createEmitter types', () => {
  interface Events {
    settled: { id: string };
  }
  const events = createEmitter<Events>();

  it('types listeners by event name', () => {
    events.on('settled', (payload) => expectTypeOf(payload).toEqualTypeOf<{ id: string }>());
  });

  it('refuses unknown events and wrong payloads', () => {
    // @ts-expect-error: not a declared event
    events.on('nope', () => {});
    // @ts-expect-error: wrong payload shape
    events.emit('settled', { id: 1 });
  });
});

describe('JsonValue', () => {
  it('accepts JSON and refuses functions and undefined', () => {
    expectTypeOf<{ a: [1, 'x', null] }>().toMatchTypeOf<JsonValue>();
    expectTypeOf<() => void>().not.toMatchTypeOf<JsonValue>();
    expectTypeOf<undefined>().not.toMatchTypeOf<JsonValue>();
  });
});
