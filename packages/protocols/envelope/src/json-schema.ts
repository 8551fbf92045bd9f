import { type ToJsonSchemaOptions, toJsonSchema } from '@parley/core';
import { EnvelopeError } from './errors.js';
import type { IntentNameOf, IntentRegistry } from './intents.js';
import { MAX_FIELD_LENGTH, MAX_SPAWN_DEPTH } from './internal/frame.js';
import { defsKeywordOf, embedJsonSchema } from './internal/json-schema-embed.js';

/**
 * Exports the payload schema of every intent as JSON Schema (through core's `toJsonSchema`, so
 * zod 4 and any library with Standard JSON Schema work), keyed by intent name.
 *
 * Use it to put the exact payload shape into a model's prompt or tool definition.
 *
 * @throws EnvelopeError `schema_not_convertible` naming the intent (`details.intent`) whose schema
 * cannot describe itself, e.g. a valibot schema, or a zod type JSON Schema cannot express; the
 * core error is the `cause`.
 * @example
 * ```ts
 * import { defineIntents, toIntentJsonSchemas } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * console.log(toIntentJsonSchemas(intents).notify.required); // ['message']
 * ```
 */
export function toIntentJsonSchemas<R extends IntentRegistry>(
  registry: R,
  options: ToJsonSchemaOptions = {},
): Readonly<Record<IntentNameOf<R>, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of registry.names) out[name] = payloadJsonSchema(registry, name, options);
  return Object.freeze(out) as Readonly<Record<IntentNameOf<R>, Record<string, unknown>>>; // one entry per name
}

/**
 * Exports the whole envelope of one intent as JSON Schema: the frame's fields, `intent` fixed to
 * that name, and the payload's schema inlined. The payload's definitions (recursive `z.lazy`,
 * `.meta({ id })`) move to the envelope's `$defs` (`definitions` for draft-07) as `payload__<name>`
 * with its `$ref`s rewritten, so ajv and other validators resolve them. A `{ "$ref": name }`
 * payload is not described: the codec accepts one only through a host's resolver.
 *
 * Use it when a model writes whole envelopes, so its prompt holds the exact output shape.
 *
 * @throws EnvelopeError `unknown_intent` for a name the registry lacks; `schema_not_convertible`
 * as {@link toIntentJsonSchemas}.
 * @example
 * ```ts
 * import { defineIntents, toEnvelopeJsonSchema } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const schema = toEnvelopeJsonSchema(intents, 'notify');
 * console.log((schema.properties as Record<string, unknown>).intent); // { type: 'string', enum: ['notify'] }
 * ```
 */
export function toEnvelopeJsonSchema<R extends IntentRegistry>(
  registry: R,
  intent: IntentNameOf<R>,
  options: ToJsonSchemaOptions = {},
): Record<string, unknown> {
  const { $schema, ...document } = payloadJsonSchema(registry, intent, options);
  const keyword = defsKeywordOf(options.target);
  const defs: Record<string, unknown> = {};
  const embedded = embedJsonSchema(document, 'payload', defs, keyword);
  const { description } = document;
  const payload =
    embedded.$ref === undefined || description === undefined ? embedded : { ...embedded, description };
  const text = { type: 'string', minLength: 1, maxLength: MAX_FIELD_LENGTH };
  return {
    ...($schema === undefined ? {} : { $schema }),
    type: 'object',
    additionalProperties: false,
    required: ['id', 'from', 'to', 'intent', 'payload', 'sent_at', 'spawn_depth'],
    properties: {
      id: text,
      from: text,
      to: text,
      intent: { type: 'string', enum: [intent] },
      ref_task: text,
      payload,
      expect_response: { type: 'boolean' },
      request_id: text,
      in_reply_to: text,
      sent_at: { type: 'integer', minimum: 0 },
      spawn_depth: { type: 'integer', minimum: 0, maximum: MAX_SPAWN_DEPTH },
    },
    ...(Object.keys(defs).length === 0 ? {} : { [keyword]: defs }),
  };
}

function payloadJsonSchema(
  registry: IntentRegistry,
  intent: string,
  options: ToJsonSchemaOptions,
): Record<string, unknown> {
  const spec = registry.get(intent);
  let schema: Record<string, unknown>;
  try {
    schema = toJsonSchema(spec.payload, options);
  } catch (cause) {
    throw new EnvelopeError(
      'schema_not_convertible',
      `The payload schema of "${intent}" cannot be exported as JSON Schema`,
      {
        details: { intent },
        cause,
      },
    );
  }
  if (spec.description !== undefined && schema.description === undefined) {
    return { ...schema, description: spec.description };
  }
  return schema;
}
