import { clip } from './reply-limits.js';
import {
  type InferInput,
  type InferOutput,
  isStandardSchema,
  type StandardResult,
  type StandardSchemaV1,
  toJsonSchema,
} from '@parley/core';
import { EnvelopeError } from './errors.js';
import { artifactSetJsonSchema, defsKeywordOf } from './internal/json-schema-embed.js';

/**
 * A map of artifact name → the Standard Schema that artifact's content must satisfy, as given to
 * {@link defineArtifacts} (`{ 'Bullish_Brief.json': BullishBrief, … }`).
 *
 * @example
 * ```ts
 * import type { ArtifactSchemas } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const reports: ArtifactSchemas = { 'Bullish_Brief.json': z.object({ thesis: z.string() }) };
 * ```
 */
export type ArtifactSchemas = { readonly [artifact: string]: StandardSchemaV1 };

/**
 * Options for {@link defineArtifacts}.
 *
 * @example
 * ```ts
 * import type { ArtifactSetOptions } from '@parley/envelope';
 *
 * const options: ArtifactSetOptions = { field: 'kind' };
 * ```
 */
export interface ArtifactSetOptions {
  /** The payload field that names the artifact of an inline payload; `artifact` by default. */
  readonly field?: string;
}

/**
 * The artifact an {@link ArtifactSet} chose for a payload: its name as defined, and its schema.
 *
 * @example
 * ```ts
 * import { defineArtifacts, type ArtifactMatch } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const reports = defineArtifacts({ 'Bullish_Brief.json': z.object({ thesis: z.string() }) });
 * const match: ArtifactMatch | undefined = reports.select('Bullish_Brief');
 * console.log(match?.artifact); // Bullish_Brief.json
 * ```
 */
export interface ArtifactMatch {
  readonly artifact: string;
  readonly schema: StandardSchemaV1;
}

/**
 * A payload schema that is one of several artifact schemas, chosen per payload: by the `$ref` name
 * when the codec resolved one, otherwise by the payload's artifact field. It is itself a Standard
 * Schema (and Standard JSON Schema: an `anyOf` over the artifacts, each requiring the artifact
 * field to name it), so it goes wherever an intent's payload does.
 *
 * @example
 * ```ts
 * import { defineArtifacts, type ArtifactSet } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const reports: ArtifactSet = defineArtifacts({ 'Bullish_Brief.json': z.object({ thesis: z.string() }) });
 * console.log(reports.names, reports.field); // ['Bullish_Brief.json'] artifact
 * ```
 */
export interface ArtifactSet<TInput = unknown, TOutput = TInput> extends StandardSchemaV1<TInput, TOutput> {
  /** The schemas as given (frozen). */
  readonly artifacts: ArtifactSchemas;
  /** Every artifact name, in definition order. */
  readonly names: readonly string[];
  /** The payload field naming the artifact of an inline payload. */
  readonly field: string;
  /**
   * The artifact called `name`: matched exactly, or with its extension ignored on either side
   * (`Bullish_Brief` and `Bullish_Brief.json` name the same artifact); `undefined` for none.
   */
  select(name: string): ArtifactMatch | undefined;
  /** The artifact an inline payload names in its {@link ArtifactSet.field}, or `undefined`. */
  selectFor(payload: unknown): ArtifactMatch | undefined;
}

/**
 * Defines a payload schema that accepts one of several artifacts, each with its own schema.
 *
 * Use it when one intent carries many kinds of artifact, e.g. `deliver_report` in a pipeline with
 * seven report types: one registry and one codec instead of one per artifact. The codec picks the
 * schema by the `$ref` name of a referenced payload (`{ "$ref": "Bullish_Brief.json" }`) or, for an
 * inline payload, by its `artifact` field, and refuses a payload that names no known artifact with
 * `unknown_artifact`. {@link defineAgentIntents} builds one from its `reports` option.
 *
 * @throws EnvelopeError `invalid_definition` when the map is empty, a value is not a Standard
 * Schema, a name is empty, two names differ only by extension, or `field` is empty.
 * @example
 * ```ts
 * import { createCodec, defineArtifacts, defineIntents } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const reports = defineArtifacts({
 *   'Bullish_Brief.json': z.object({ artifact: z.string(), thesis: z.string() }),
 *   'Bearish_Brief.json': z.object({ artifact: z.string(), risk: z.string() }),
 * });
 * const codec = createCodec(defineIntents({ deliver_report: { direction: 'any', payload: reports } }));
 * const envelope = codec.create('deliver_report', {
 *   from: 'bear', to: 'lead', payload: { artifact: 'Bearish_Brief', risk: 'lower high' },
 * });
 * const result = codec.decode(codec.encode(envelope));
 * console.log(result.ok && result.artifact); // Bearish_Brief.json
 * ```
 */
export function defineArtifacts<const TSchemas extends ArtifactSchemas>(
  schemas: TSchemas,
  options: ArtifactSetOptions = {},
): ArtifactSet<
  { [K in keyof TSchemas]: InferInput<TSchemas[K]> }[keyof TSchemas],
  { [K in keyof TSchemas]: InferOutput<TSchemas[K]> }[keyof TSchemas]
> {
  if (typeof schemas !== 'object' || schemas === null || Array.isArray(schemas)) {
    throw invalid('defineArtifacts expects an object of artifact schemas');
  }
  const field = options.field ?? 'artifact';
  if (typeof field !== 'string' || field === '') throw invalid('field must be a non-empty string');
  const byKey = new Map<string, ArtifactMatch>();
  for (const artifact of Object.keys(schemas)) {
    const schema = schemas[artifact];
    if (artifact === '') throw invalid('Artifact names must not be empty');
    if (!isStandardSchema(schema))
      throw invalid(`The schema of artifact "${artifact}" is not a Standard Schema`);
    const key = stem(artifact);
    const taken = byKey.get(key);
    if (taken !== undefined) {
      throw invalid(`The artifacts "${taken.artifact}" and "${artifact}" differ only by extension`);
    }
    byKey.set(key, Object.freeze({ artifact, schema }));
  }
  if (byKey.size === 0) throw invalid('defineArtifacts needs at least one artifact');
  const names = Object.freeze(Object.keys(schemas));
  const select = (name: string): ArtifactMatch | undefined => byKey.get(stem(name));
  const selectFor = (payload: unknown): ArtifactMatch | undefined => {
    if (typeof payload !== 'object' || payload === null || !Object.hasOwn(payload, field)) return undefined;
    const name = (payload as Record<string, unknown>)[field];
    return typeof name === 'string' ? select(name) : undefined;
  };
  const jsonSchema = (io: 'input' | 'output', target: string): Record<string, unknown> =>
    artifactSetJsonSchema(
      [...byKey].map(([stem, { artifact, schema }]) => ({
        artifact,
        stem,
        // toJsonSchema's target union is narrower than the Standard JSON Schema's string; it passes it on.
        document: toJsonSchema(schema, { io, target: target as 'draft-2020-12' }),
      })),
      field,
      io,
      defsKeywordOf(target),
    );
  type Input = { [K in keyof TSchemas]: InferInput<TSchemas[K]> }[keyof TSchemas];
  type Output = { [K in keyof TSchemas]: InferOutput<TSchemas[K]> }[keyof TSchemas];
  const set: ArtifactSet<Input, Output> = {
    artifacts: Object.freeze({ ...schemas }),
    names,
    field,
    select,
    selectFor,
    '~standard': {
      version: 1,
      vendor: 'parley',
      validate(value) {
        const match = selectFor(value);
        if (match === undefined) return unknownArtifactIssue(field, value, names);
        // The chosen schema's output is one member of the union this set declares.
        return match.schema['~standard'].validate(value) as StandardResult<Output>;
      },
      jsonSchema: {
        input: ({ target }: { readonly target: string }) => jsonSchema('input', target),
        output: ({ target }: { readonly target: string }) => jsonSchema('output', target),
      },
    } as ArtifactSet<Input, Output>['~standard'], // jsonSchema is the Standard JSON Schema extension core reads
  };
  Object.defineProperty(set, ARTIFACT_SET, { value: true });
  return Object.freeze(set);
}

/**
 * Tells whether a schema is an {@link ArtifactSet} made by {@link defineArtifacts}.
 *
 * @example
 * ```ts
 * import { defineArtifacts, isArtifactSet } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * console.log(isArtifactSet(defineArtifacts({ 'A.json': z.object({}) })), isArtifactSet(z.object({}))); // true false
 * ```
 */
export function isArtifactSet(value: unknown): value is ArtifactSet {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [ARTIFACT_SET]?: unknown })[ARTIFACT_SET] === true
  );
}

const ARTIFACT_SET = Symbol.for('@parley/envelope/artifact-set');

/** `Bullish_Brief.json` and `Bullish_Brief` are the same artifact. */
function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function unknownArtifactIssue(
  field: string,
  value: unknown,
  names: readonly string[],
): { readonly issues: readonly { readonly message: string; readonly path: readonly string[] }[] } {
  const given =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
  const message =
    typeof given === 'string'
      ? `Unknown artifact "${clip(given)}"; expected one of ${names.join(', ')}`
      : `Required: the artifact name, one of ${names.join(', ')}`;
  return { issues: [{ message, path: [field] }] };
}

function invalid(message: string): EnvelopeError {
  return new EnvelopeError('invalid_definition', message);
}
