import { isStandardSchema, type StandardSchemaV1 } from '@parley/core';
import { asSchema, type FlexibleSchema, jsonSchema, type Schema } from 'ai';

/**
 * The Standard Schema the Parley tool gate validates a tool's arguments with: the tool's own input
 * schema when it is one (zod, valibot…), otherwise an adapter over the AI SDK schema's `validate`
 * (a `jsonSchema()` without `validate` accepts any arguments, as it does in the SDK).
 *
 * @internal
 */
export function toStandardSchema(input: FlexibleSchema<unknown>): StandardSchemaV1 {
  if (isStandardSchema(input)) return input;
  const schema = asSchema(input);
  return {
    '~standard': {
      version: 1,
      vendor: 'ai-sdk',
      validate: async (value: unknown) => {
        if (schema.validate === undefined) return { value };
        const result = await schema.validate(value);
        return result.success ? { value: result.value } : { issues: [{ message: result.error.message }] };
      },
    },
  };
}

/**
 * The schema the wrapped tool shows the SDK: the same JSON Schema for the model, and no validation
 * in the SDK, so that arguments the tool's schema refuses reach the Parley gate and come back to
 * the model as a refusal it can act on, not as a generic invalid-input error.
 *
 * @internal
 */
export function toLaxSchema(input: FlexibleSchema<unknown>): Schema<unknown> {
  const schema = asSchema(input);
  return jsonSchema(() => schema.jsonSchema);
}
