import { CoreError } from './errors.js';
import type { InferOutput, StandardIssue, StandardResult, StandardSchemaV1 } from './standard-schema.js';

/**
 * One validation issue, with its path in both array and text form.
 *
 * @example
 * ```ts
 * import type { ValidationIssue } from '@parley/core';
 *
 * const issue: ValidationIssue = {
 *   path: ['key_levels', 0, 'evidence'],
 *   pathText: 'key_levels[0].evidence',
 *   message: 'Required',
 * };
 * ```
 */
export interface ValidationIssue {
  readonly path: readonly (string | number)[];
  /** The path written as `a.b[0].c`; empty for the root. */
  readonly pathText: string;
  readonly message: string;
}

/**
 * The closed result of {@link validate}: the parsed value, or the issues and the dotted paths of
 * the required fields that were absent (or null).
 *
 * @example
 * ```ts
 * import type { ValidationResult } from '@parley/core';
 *
 * function describe(result: ValidationResult<{ name: string }>): string {
 *   return result.ok ? result.value.name : `missing: ${result.missingFields.join(', ')}`;
 * }
 * ```
 */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly issues: readonly ValidationIssue[];
      readonly missingFields: readonly string[];
    };

/**
 * Validates a value against any Standard Schema (zod 4, valibot, arktype…), synchronously.
 *
 * Use it wherever Parley or a host checks input from a model, a peer or a user. A failure lists
 * every issue with its path, and `missingFields` names the fields that were required but absent
 * or null, which is what the reference protocols send back instead of accepting nulls.
 *
 * @throws CoreError `async_schema` when the schema validates asynchronously (use
 * {@link validateAsync}); `invalid_schema` when the value passed is not a Standard Schema.
 * @example
 * ```ts
 * import { validate } from '@parley/core';
 * import { z } from 'zod';
 *
 * const Brief = z.object({ topic: z.string(), key_levels: z.array(z.object({ evidence: z.string() })) });
 * const result = validate(Brief, { key_levels: [{}] });
 * if (!result.ok) console.log(result.missingFields); // ['topic', 'key_levels[0].evidence']
 * ```
 */
export function validate<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): ValidationResult<InferOutput<S>> {
  const result = standardOf(schema).validate(value);
  if (isPromiseLike(result)) {
    result.then(undefined, () => {}); // refused below; its eventual rejection must not go unhandled
    throw new CoreError('async_schema', 'This schema validates asynchronously; use validateAsync()', {
      details: { vendor: schema['~standard'].vendor },
    });
  }
  return toValidationResult(result as StandardResult<InferOutput<S>>, value);
}

/**
 * Validates a value against any Standard Schema, awaiting schemas that validate asynchronously.
 *
 * Use it when the schema may contain async refinements; otherwise {@link validate} is cheaper.
 *
 * @throws CoreError `invalid_schema` when the value passed is not a Standard Schema.
 * @example
 * ```ts
 * import { validateAsync } from '@parley/core';
 * import { z } from 'zod';
 *
 * const Name = z.string().refine(async (s) => s.length > 2, 'Too short');
 * const result = await validateAsync(Name, 'ab');
 * console.log(result.ok); // false
 * ```
 */
export async function validateAsync<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): Promise<ValidationResult<InferOutput<S>>> {
  const result = await standardOf(schema).validate(value);
  return toValidationResult(result as StandardResult<InferOutput<S>>, value);
}

/**
 * Validates a value against any Standard Schema, synchronously when the schema answers
 * synchronously and as a promise only when it validates asynchronously.
 *
 * Use it on a hot path that must accept both kinds of schema: awaiting {@link validateAsync}
 * costs a promise and a microtask per call even for a schema that answered at once. Check the
 * result with `instanceof Promise` (or just `await` it when the cost does not matter).
 *
 * @throws CoreError `invalid_schema` when the value passed is not a Standard Schema.
 * @example
 * ```ts
 * import { validateEither } from '@parley/core';
 * import { z } from 'zod';
 *
 * const now = validateEither(z.string(), 'ab');
 * if (!(now instanceof Promise)) console.log(now.ok); // true
 * const later = validateEither(z.string().refine(async (s) => s.length > 2), 'ab');
 * console.log(later instanceof Promise, (await later).ok); // true false
 * ```
 */
export function validateEither<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): ValidationResult<InferOutput<S>> | Promise<ValidationResult<InferOutput<S>>> {
  const result = standardOf(schema).validate(value);
  if (!isPromiseLike(result)) return toValidationResult(result as StandardResult<InferOutput<S>>, value);
  return Promise.resolve(result).then((settled) =>
    toValidationResult(settled as StandardResult<InferOutput<S>>, value),
  );
}

/**
 * Tells whether a value implements Standard Schema V1.
 *
 * @example
 * ```ts
 * import { isStandardSchema } from '@parley/core';
 * import { z } from 'zod';
 *
 * console.log(isStandardSchema(z.string()), isStandardSchema({})); // true false
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/**
 * Writes an issue path as text: `key_levels[0].evidence`; keys that are not identifiers are
 * quoted (`headers["x-id"]`).
 *
 * @example
 * ```ts
 * import { formatPath } from '@parley/core';
 *
 * console.log(formatPath(['key_levels', 0, 'evidence'])); // key_levels[0].evidence
 * ```
 */
export function formatPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function standardOf(schema: StandardSchemaV1): StandardSchemaV1['~standard'] {
  if (!isStandardSchema(schema)) {
    throw new CoreError('invalid_schema', 'Expected a Standard Schema (an object with a "~standard" key)');
  }
  return schema['~standard'];
}

function toValidationResult<T>(result: StandardResult<T>, input: unknown): ValidationResult<T> {
  if (result.issues === undefined) return { ok: true, value: result.value };
  const issues: ValidationIssue[] = [];
  const missing = new Set<string>();
  for (const issue of result.issues) {
    const path = normalisePath(issue);
    const pathText = formatPath(path);
    issues.push({ path, pathText, message: issue.message });
    if (path.length > 0 && isAbsent(input, path)) missing.add(pathText);
  }
  return { ok: false, issues, missingFields: [...missing] };
}

function normalisePath(issue: StandardIssue): (string | number)[] {
  const out: (string | number)[] = [];
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    out.push(typeof key === 'number' ? key : String(key));
  }
  return out;
}

/** A field counts as missing when the value at its path is absent, undefined or null. */
function isAbsent(input: unknown, path: readonly (string | number)[]): boolean {
  let current: unknown = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return false; // a parent has the wrong type
    if (!Object.hasOwn(current, segment)) return true;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current === undefined || current === null;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
