import { DEFAULT_JSON_LIMITS, generateId, type JsonLimits, stringifyJson, systemClock } from '@parley/core';
import type { Codec, CodecOptions, DecodedEnvelopeOf, DecodeResult } from './codec-types.js';
import { createEnvelope, type Envelope } from './envelope.js';
import { EnvelopeError } from './errors.js';
import { type DecodeContext, decodeEnvelope, decodeEnvelopeAsync } from './internal/decode.js';
import type { IntentRegistry } from './intents.js';

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
  const ctx: DecodeContext<R> = {
    intents,
    limits: { ...DEFAULT_ENVELOPE_LIMITS, ...options.limits },
    directory: options.directory,
    resolveRef: options.resolveRef,
    nextId: options.generateId ?? generateId,
    clock: options.clock ?? systemClock,
  };
  const ids = { generateId: ctx.nextId, clock: ctx.clock };
  return {
    intents,
    create: (intent, init) => createEnvelope(intents, intent, init, ids),
    encode: encodeEnvelope,
    decode: (text) => decodeEnvelope(ctx, text),
    decodeAsync: (text) => decodeEnvelopeAsync(ctx, text),
  };
}

/** Writes an envelope as JSON text. @throws EnvelopeError `not_serializable`. */
function encodeEnvelope(envelope: Envelope): string {
  try {
    return stringifyJson(envelope);
  } catch (cause) {
    throw new EnvelopeError('not_serializable', 'The envelope holds a value JSON cannot carry', {
      details: { path: (cause as { details?: { path?: unknown } }).details?.path },
      cause,
    });
  }
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
