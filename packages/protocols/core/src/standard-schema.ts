/**
 * The Standard Schema V1 interface (https://standardschema.dev), declared here so that
 * Parley accepts schemas from zod, valibot, arktype and any other conforming library
 * without depending on one of them.
 */

/**
 * A schema from any library that implements Standard Schema V1.
 *
 * Use it to type parameters where users pass their own schemas.
 *
 * @example
 * ```ts
 * import type { StandardSchemaV1 } from '@parley/core';
 * import { z } from 'zod';
 *
 * const schema: StandardSchemaV1<unknown, { name: string }> = z.object({ name: z.string() });
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/**
 * The properties a Standard Schema exposes under its `~standard` key.
 *
 * @example
 * ```ts
 * import type { StandardSchemaProps } from '@parley/core';
 * import { z } from 'zod';
 *
 * const props: StandardSchemaProps<unknown, string> = z.string()['~standard'];
 * ```
 */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  /** The version of the Standard Schema interface: 1. */
  readonly version: 1;
  /** The library that made the schema, e.g. `zod`. */
  readonly vendor: string;
  /** Checks a value; may answer synchronously or with a promise. */
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: StandardTypes<Input, Output> | undefined;
}

/**
 * The result of a Standard Schema's `validate`.
 *
 * @example
 * ```ts
 * import type { StandardResult } from '@parley/core';
 *
 * const failed: StandardResult<string> = { issues: [{ message: 'Required', path: ['name'] }] };
 * ```
 */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/**
 * One validation issue reported by a Standard Schema.
 *
 * @example
 * ```ts
 * import type { StandardIssue } from '@parley/core';
 *
 * const issue: StandardIssue = { message: 'Expected string', path: ['items', 0, { key: 'name' }] };
 * ```
 */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined;
}

/**
 * A path segment in object form, as some Standard Schema libraries report it.
 *
 * @example
 * ```ts
 * import type { StandardPathSegment } from '@parley/core';
 *
 * const segment: StandardPathSegment = { key: 'evidence' };
 * ```
 */
export interface StandardPathSegment {
  readonly key: PropertyKey;
}

/**
 * The input and output types a Standard Schema carries for inference.
 *
 * @example
 * ```ts
 * import type { StandardTypes } from '@parley/core';
 *
 * type T = StandardTypes<string, number>['output']; // number
 * ```
 */
export interface StandardTypes<Input = unknown, Output = Input> {
  readonly input: Input;
  readonly output: Output;
}

/**
 * The input type of a Standard Schema.
 *
 * @example
 * ```ts
 * import type { InferInput } from '@parley/core';
 * import { z } from 'zod';
 *
 * const schema = z.object({ n: z.coerce.number() });
 * type In = InferInput<typeof schema>; // { n: unknown }
 * ```
 */
export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];

/**
 * The output type of a Standard Schema: what a successful validation returns.
 *
 * @example
 * ```ts
 * import type { InferOutput } from '@parley/core';
 * import { z } from 'zod';
 *
 * const schema = z.object({ name: z.string() });
 * type Out = InferOutput<typeof schema>; // { name: string }
 * ```
 */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];

/**
 * A Standard Schema that can also describe itself as JSON Schema (the Standard JSON Schema
 * extension, implemented by zod 4.2+ and others).
 *
 * @example
 * ```ts
 * import type { StandardJsonSchemaV1 } from '@parley/core';
 * import { z } from 'zod';
 *
 * const schema: StandardJsonSchemaV1 = z.object({ name: z.string() });
 * ```
 */
export interface StandardJsonSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output> & {
    readonly jsonSchema: {
      /** JSON Schema of what the schema accepts. */
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      /** JSON Schema of what the schema returns. */
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}
