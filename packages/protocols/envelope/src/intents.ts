import { type InferInput, type InferOutput, isStandardSchema, type StandardSchemaV1 } from '@parley/core';
import { type Direction, type DirectionRule, normaliseDirection } from './direction.js';
import { EnvelopeError } from './errors.js';

/**
 * One intent: its direction and the Standard Schema (zod, valibot…) its payload must satisfy.
 *
 * @example
 * ```ts
 * import type { IntentSpec } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const deliver: IntentSpec = { direction: 'up', payload: z.object({ summary: z.string() }) };
 * ```
 */
export interface IntentSpec<TSchema extends StandardSchemaV1 = StandardSchemaV1> {
  readonly direction: Direction;
  readonly payload: TSchema;
  /** For people and prompts; carried into the JSON Schema export as `description`. */
  readonly description?: string;
}

/**
 * A map of intent name → {@link IntentSpec}, as given to {@link defineIntents}.
 *
 * @example
 * ```ts
 * import type { IntentSpecs } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const specs: IntentSpecs = { notify: { direction: 'any', payload: z.object({ message: z.string() }) } };
 * ```
 */
export type IntentSpecs = { readonly [name: string]: IntentSpec };

/**
 * A static, frozen set of intents from {@link defineIntents}. Intent names and payload types flow
 * from it into {@link createEnvelope}, {@link createCodec} and the decoded envelopes.
 *
 * @example
 * ```ts
 * import { defineIntents, type IntentRegistry } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const registry: IntentRegistry = intents;
 * console.log(registry.names); // ['notify']
 * ```
 */
export interface IntentRegistry<TSpecs extends IntentSpecs = IntentSpecs> {
  /** The specs as given (frozen). */
  readonly specs: TSpecs;
  /** Every intent name, in definition order (typed as {@link IntentNameOf} the registry). */
  readonly names: readonly string[];
  /** Tells whether `name` is an intent of this registry (own names only, never `toString` or `__proto__`). */
  has(name: string): boolean;
  /** The spec of `name`; throws {@link EnvelopeError} `unknown_intent` for any other name. */
  get<K extends keyof TSpecs & string>(name: K): TSpecs[K];
  /** The direction of `name` in object form (`down` becomes `{ to: 'child' }`). */
  directionOf(name: keyof TSpecs & string): DirectionRule;
}

/**
 * The intent names of a registry.
 *
 * @example
 * ```ts
 * import { defineIntents, type IntentNameOf } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const name: IntentNameOf<typeof intents> = 'notify';
 * ```
 */
export type IntentNameOf<R> = R extends IntentRegistry<infer S> ? keyof S & string : never;

/**
 * The payload type of one intent after validation (the schema's output).
 *
 * @example
 * ```ts
 * import { defineIntents, type PayloadOf } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const payload: PayloadOf<typeof intents, 'notify'> = { message: 'pipeline done' };
 * ```
 */
export type PayloadOf<R, K extends IntentNameOf<R>> =
  R extends IntentRegistry<infer S> ? InferOutput<S[K]['payload']> : never;

/**
 * The payload type an author passes for one intent (the schema's input).
 *
 * @example
 * ```ts
 * import { defineIntents, type PayloadInputOf } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ n: z.coerce.number() }) } });
 * const payload: PayloadInputOf<typeof intents, 'notify'> = { n: '3' };
 * ```
 */
export type PayloadInputOf<R, K extends IntentNameOf<R>> =
  R extends IntentRegistry<infer S> ? InferInput<S[K]['payload']> : never;

/**
 * Defines a set of intents, each with its direction and payload schema.
 *
 * Use it once per protocol, as a module constant: it is pure, and the returned registry is what
 * types every envelope created or decoded with it. The name `missing_fields` is reserved for the
 * codec's reply.
 *
 * @throws EnvelopeError `invalid_definition` when a name is empty, malformed or reserved, a
 * payload is not a Standard Schema, or a direction is not one of the accepted forms.
 * @example
 * ```ts
 * import { defineIntents } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({
 *   assign_task: { direction: 'down', payload: z.object({ task: z.string() }) },
 *   deliver_report: { direction: 'up', payload: z.object({ summary: z.string() }) },
 *   escalate: { direction: { toRole: 'ceo' }, payload: z.object({ reason: z.string() }) },
 * });
 * console.log(intents.names); // ['assign_task', 'deliver_report', 'escalate']
 * console.log(intents.directionOf('deliver_report')); // { to: 'parent' }
 * ```
 */
export function defineIntents<const TSpecs extends IntentSpecs>(specs: TSpecs): IntentRegistry<TSpecs> {
  if (typeof specs !== 'object' || specs === null || Array.isArray(specs)) {
    throw invalid('defineIntents expects an object of intent specs', {});
  }
  const rules = new Map<string, DirectionRule>();
  for (const name of Object.keys(specs)) {
    if (!INTENT_NAME.test(name)) {
      throw invalid(
        `Intent names are 1–64 letters, digits, "_", "-" or ".", starting with a letter: "${name}"`,
        {
          intent: name,
        },
      );
    }
    if (name === 'missing_fields')
      throw invalid('The intent name "missing_fields" is reserved', { intent: name });
    const spec = specs[name] as IntentSpec | undefined;
    if (typeof spec !== 'object' || spec === null)
      throw invalid(`Intent "${name}" needs a spec`, { intent: name });
    if (!isStandardSchema(spec.payload)) {
      throw invalid(`The payload of intent "${name}" is not a Standard Schema`, { intent: name });
    }
    rules.set(name, Object.freeze(normaliseDirection(name, spec.direction)));
  }
  const names = Object.freeze([...rules.keys()]);
  const frozen = Object.freeze({ ...specs });
  return Object.freeze({
    specs: frozen,
    names,
    has: (name: string): boolean => rules.has(name),
    get<K extends keyof TSpecs & string>(name: K): TSpecs[K] {
      if (!rules.has(name)) throw unknownIntent(name);
      return frozen[name];
    },
    directionOf(name: keyof TSpecs & string): DirectionRule {
      const rule = rules.get(name);
      if (rule === undefined) throw unknownIntent(name);
      return rule;
    },
  });
}

const INTENT_NAME = /^[A-Za-z][\w.-]{0,63}$/;

function invalid(message: string, details: Record<string, unknown>): EnvelopeError {
  return new EnvelopeError('invalid_definition', message, { details });
}

function unknownIntent(name: string): EnvelopeError {
  return new EnvelopeError('unknown_intent', `Unknown intent "${name}"`, { details: { intent: name } });
}
