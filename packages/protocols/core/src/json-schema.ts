import { CoreError } from './errors.js';
import type { StandardJsonSchemaV1, StandardSchemaV1 } from './standard-schema.js';

/**
 * Options for {@link toJsonSchema}.
 *
 * @example
 * ```ts
 * import type { ToJsonSchemaOptions } from '@parley/core';
 *
 * const options: ToJsonSchemaOptions = { io: 'input', target: 'draft-07' };
 * ```
 */
export interface ToJsonSchemaOptions {
  /** Describe what the schema accepts (`input`, the default) or what it returns (`output`). */
  readonly io?: 'input' | 'output';
  /** The JSON Schema dialect; `draft-2020-12` by default. */
  readonly target?: 'draft-2020-12' | 'draft-07' | 'openapi-3.0';
}

/**
 * Converts a schema to JSON Schema through the Standard JSON Schema extension (zod 4.2+,
 * and any other library that implements it).
 *
 * Use it to put the exact shape a model must produce into its prompt or tool definition.
 *
 * @throws CoreError `schema_not_convertible` when the schema cannot describe itself as JSON
 * Schema (its library lacks the extension, or the schema holds a type JSON Schema cannot express).
 * @example
 * ```ts
 * import { toJsonSchema } from '@parley/core';
 * import { z } from 'zod';
 *
 * const schema = toJsonSchema(z.object({ name: z.string() }));
 * console.log(schema.required); // ['name']
 * ```
 */
export function toJsonSchema(
  schema: StandardSchemaV1,
  options: ToJsonSchemaOptions = {},
): Record<string, unknown> {
  const props = schema['~standard'] as Partial<StandardJsonSchemaV1['~standard']>;
  const converter = props.jsonSchema?.[options.io ?? 'input'];
  if (typeof converter !== 'function') {
    throw new CoreError(
      'schema_not_convertible',
      `Schemas from "${props.vendor}" do not implement Standard JSON Schema; pass a JSON Schema by hand`,
      { details: { vendor: props.vendor } },
    );
  }
  try {
    return converter({ target: options.target ?? 'draft-2020-12' });
  } catch (cause) {
    throw new CoreError('schema_not_convertible', 'This schema cannot be expressed as JSON Schema', {
      details: { vendor: props.vendor },
      cause,
    });
  }
}
