import {
  DEFAULT_JSON_LIMITS,
  generateId,
  type JsonLimits,
  stringifyJson,
  systemClock,
  type ValidationResult,
  validateAsync,
} from '@parley/core';
import type {
  Codec,
  CodecOptions,
  DecodedEnvelopeOf,
  DecodeRefusal,
  DecodeResult,
  RefResolver,
} from './codec-types.js';
import { createEnvelope, type Envelope, validateOrRethrow } from './envelope.js';
import { EnvelopeError } from './errors.js';
import type { IntentRegistry } from './intents.js';
import {
  decodeFrame,
  type Found,
  isThenable,
  omittedOf,
  pickSchema,
  refsRefusal,
  SCHEMA_FAILED,
} from './internal/decode-steps.js';
import { checkMissingFieldsPayload } from './internal/missing-fields.js';
import { buildMissingFieldsReply } from './missing-fields-reply.js';
import { isPayloadRef, type PayloadRef, REF_PATTERN } from './payload-ref.js';
import { boundFailure } from './reply-limits.js';

/**
 * The JSON limits the codec applies to untrusted text unless told otherwise: 1 MiB, nesting depth
 * 32, 50 000 values, and the keys `__proto__`, `constructor` and `prototype` refused at any depth.
 *
 * @example
 * ```ts
 * import { DEFAULT_ENVELOPE_LIMITS } from '@parley/envelope';
 *
 * console.log(DEFAULT_ENVELOPE_LIMITS.maxDepth); // 32
 * ```
 */
export const DEFAULT_ENVELOPE_LIMITS = {
  maxBytes: 1024 * 1024,
  maxDepth: 32,
  maxNodes: 50_000,
  forbiddenKeys: DEFAULT_JSON_LIMITS.forbiddenKeys,
} as const satisfies Required<JsonLimits>;

/**
 * Creates a codec for one registry: the bound, typed way to author, encode and decode envelopes.
 *
 * Use one per host (or per agent). Decoding checks, in order: JSON safety limits, the frame,
 * the intent, its direction, the `$ref` resolution and the payload schema, each with its own
 * refusal code; a payload that fails its schema comes back with a ready `missing_fields` reply.
 *
 * @example
 * ```ts
 * import { createCodec, defineIntents } from '@parley/envelope';
 * import { createManualClock, createSequentialIds } from '@parley/core';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({
 *   deliver_report: { direction: 'up', payload: z.object({ thesis: z.string(), invalidation: z.string() }) },
 * });
 * const codec = createCodec(intents, { clock: createManualClock(), generateId: createSequentialIds('env_') });
 * const text = codec.encode(
 *   codec.create('deliver_report', { from: 'bull', to: 'lead', payload: { thesis: 'up', invalidation: '< 60k' } }),
 * );
 * const result = codec.decode(text);
 * if (result.ok && result.value.intent === 'deliver_report') console.log(result.value.payload.thesis); // up
 *
 * const incomplete = codec.decode(text.replace(',"invalidation":"< 60k"', ''));
 * if (!incomplete.ok && incomplete.code === 'invalid_payload') {
 *   console.log(incomplete.reply?.to, incomplete.reply?.payload.missing_fields); // bull ['invalidation']
 * }
 * ```
 */
export function createCodec<R extends IntentRegistry>(intents: R, options: CodecOptions = {}): Codec<R> {
  const limits: JsonLimits = { ...DEFAULT_ENVELOPE_LIMITS, ...options.limits };
  const directory = options.directory;
  const resolveRef = options.resolveRef;
  const nextId = options.generateId ?? generateId;
  const clock = options.clock ?? systemClock;
  const ids = { generateId: nextId, clock };

  function finish(
    envelope: Envelope,
    validation: ValidationResult<unknown>,
    replyable: boolean,
    found: Found = {},
  ): DecodeResult<R> {
    if (validation.ok) {
      (envelope as { payload: unknown }).payload = validation.value;
      // frame and payload both validated
      return { ok: true, value: envelope as DecodedEnvelopeOf<R>, ...found };
    }
    const message = `The payload of "${envelope.intent}" does not match its schema`;
    // Both the refusal and the reply are cut to REPLY_LIMITS, however many issues the schema found.
    const bounded = boundFailure(validation);
    const { issues, missingFields } = bounded;
    const omitted = omittedOf(bounded.omitted);
    const refusal = {
      ok: false,
      code: 'invalid_payload',
      message,
      envelope,
      issues,
      missingFields,
      ...omitted,
    } as const;
    if (!replyable) return refusal;
    const spawnDepth = directory === undefined ? 0 : (directory.agent(envelope.to)?.depth ?? 0);
    const reply = buildMissingFieldsReply(envelope, validation, nextId, clock, spawnDepth);
    return { ...refusal, reply, ...found };
  }

  function lookUp(envelope: Envelope): { readonly ref: string } | DecodeRefusal {
    const ref = (envelope.payload as PayloadRef).$ref;
    if (!REF_PATTERN.test(ref)) return refsRefusal(envelope, 'The $ref is not a plain artifact name');
    if (resolveRef === undefined) return refsRefusal(envelope, `No resolver for $ref "${ref}"`);
    return { ref };
  }

  return {
    intents,
    create: (intent, init) => createEnvelope(intents, intent, init, ids),
    encode(envelope) {
      try {
        return stringifyJson(envelope);
      } catch (cause) {
        throw new EnvelopeError('not_serializable', 'The envelope holds a value JSON cannot carry', {
          details: { path: (cause as { details?: { path?: unknown } }).details?.path },
          cause,
        });
      }
    },
    decode(text) {
      const framed = decodeFrame(text, intents, limits, directory);
      if ('ok' in framed) return framed;
      const { envelope } = framed;
      if (framed.schema === undefined) return finish(envelope, checkMissingFieldsPayload(envelope), false);
      let payload: unknown = envelope.payload;
      let ref: string | undefined;
      if (isPayloadRef(payload)) {
        const found = lookUp(envelope);
        if ('ok' in found) return found;
        ref = found.ref;
        try {
          payload = (resolveRef as RefResolver)(ref, envelope); // lookUp proved it is set
        } catch (cause) {
          return refsRefusal(envelope, `The resolver failed for $ref "${ref}"`, cause);
        }
        if (isThenable(payload)) {
          payload.then(undefined, () => {}); // never leave a rejection unhandled
          return {
            ok: false,
            code: 'needs_async',
            message: 'The $ref resolver is async; use decodeAsync',
            envelope,
          };
        }
        if (payload === undefined) return refsRefusal(envelope, `No artifact named "${ref}"`);
      }
      const picked = pickSchema(envelope, framed.schema, ref, payload);
      if ('ok' in picked) return picked;
      let validation: ValidationResult<unknown>;
      try {
        validation = validateOrRethrow(picked.schema, payload);
      } catch (cause) {
        if (!(cause instanceof EnvelopeError)) throw cause;
        return {
          ok: false,
          code: 'needs_async',
          message: 'The payload schema is async; use decodeAsync',
          envelope,
        };
      }
      return finish(envelope, validation, true, picked.found);
    },
    async decodeAsync(text) {
      const framed = decodeFrame(text, intents, limits, directory);
      if ('ok' in framed) return framed;
      const { envelope } = framed;
      if (framed.schema === undefined) return finish(envelope, checkMissingFieldsPayload(envelope), false);
      let payload: unknown = envelope.payload;
      let ref: string | undefined;
      if (isPayloadRef(payload)) {
        const found = lookUp(envelope);
        if ('ok' in found) return found;
        ref = found.ref;
        try {
          payload = await (resolveRef as RefResolver)(ref, envelope); // lookUp proved it is set
        } catch (cause) {
          return refsRefusal(envelope, `The resolver failed for $ref "${ref}"`, cause);
        }
        if (payload === undefined) return refsRefusal(envelope, `No artifact named "${ref}"`);
      }
      const picked = pickSchema(envelope, framed.schema, ref, payload);
      if ('ok' in picked) return picked;
      let validation: ValidationResult<unknown>;
      try {
        validation = await validateAsync(picked.schema, payload);
      } catch {
        // A payload schema that throws (a transform, a refinement) refuses the envelope, as data.
        validation = SCHEMA_FAILED;
      }
      return finish(envelope, validation, true, picked.found);
    },
  };
}

/**
 * Decodes untrusted envelope text and returns a result; never throws. The one-call form of
 * {@link Codec.decode}, for transport paths.
 *
 * @example
 * ```ts
 * import { defineIntents, safeParseEnvelope } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const result = safeParseEnvelope(intents, '{"intent":"notify","__proto__":{}}');
 * console.log(result.ok ? 'accepted' : result.code); // json_forbidden_key
 * ```
 */
export function safeParseEnvelope<R extends IntentRegistry>(
  intents: R,
  text: string,
  options?: CodecOptions,
): DecodeResult<R> {
  return createCodec(intents, options).decode(text);
}

/**
 * Decodes envelope text, throwing on refusal. Use it where the text is trusted (tests, stored
 * envelopes); transports use {@link safeParseEnvelope}.
 *
 * @throws EnvelopeError with the refusal's code (`json_syntax`, `invalid_envelope`, `unknown_intent`,
 * `wrong_direction`, `invalid_payload`…) and the refusal's facts in `details`.
 * @example
 * ```ts
 * import { defineIntents, parseEnvelope } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const envelope = parseEnvelope(
 *   intents,
 *   '{"id":"e1","from":"ceo","to":"discord","intent":"notify","payload":{"message":"hi"},"sent_at":0,"spawn_depth":0}',
 * );
 * console.log(envelope.payload); // { message: 'hi' }
 * ```
 */
export function parseEnvelope<R extends IntentRegistry>(
  intents: R,
  text: string,
  options?: CodecOptions,
): DecodedEnvelopeOf<R> {
  const result = safeParseEnvelope(intents, text, options);
  if (result.ok) return result.value;
  const { ok: _ok, code, message, ...details } = result;
  throw new EnvelopeError(code, message, { details });
}
