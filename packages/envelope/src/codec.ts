import {
  type Clock,
  DEFAULT_JSON_LIMITS,
  generateId,
  type IdGenerator,
  type JsonLimits,
  type StandardSchemaV1,
  safeParseJson,
  stringifyJson,
  systemClock,
  type ValidationIssue,
  type ValidationResult,
  validateAsync,
} from '@parley/core';
import type { AgentDirectory } from './directory.js';
import {
  buildMissingFieldsReply,
  createEnvelope,
  type DecodedEnvelopeOf,
  type Envelope,
  type EnvelopeInit,
  MISSING_FIELDS_INTENT,
  type MissingFieldsEnvelope,
  validateOrRethrow,
} from './envelope.js';
import { type DecodeRefusalCode, EnvelopeError } from './errors.js';
import { checkDirection, type IntentNameOf, type IntentRegistry, type PayloadInputOf } from './intents.js';
import { checkFrame, type FrameIssue } from './internal/frame.js';
import { checkMissingFieldsPayload } from './internal/missing-fields.js';
import { isPayloadRef, type PayloadRef, REF_PATTERN } from './payload-ref.js';
import { isArtifactSet } from './artifacts.js';
import { boundFailure, clip, type Omitted } from './reply-limits.js';

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
 * Resolves a `{ "$ref": name }` payload to its content, or returns `undefined` when there is no
 * such artifact. Only {@link Codec.decodeAsync} accepts a promise. The name has already matched
 * {@link REF_PATTERN}.
 *
 * @example
 * ```ts
 * import type { RefResolver } from '@parley/envelope';
 *
 * const artifacts = new Map<string, unknown>([['Bullish_Brief.json', { thesis: 'up' }]]);
 * const resolveRef: RefResolver = (ref) => artifacts.get(ref);
 * ```
 */
export type RefResolver = (ref: string, envelope: Envelope) => unknown;

/**
 * Options for {@link createCodec}, {@link safeParseEnvelope} and {@link parseEnvelope}.
 *
 * @example
 * ```ts
 * import type { CodecOptions } from '@parley/envelope';
 * import { createManualClock, createSequentialIds } from '@parley/core';
 *
 * const options: CodecOptions = {
 *   limits: { maxBytes: 64 * 1024 },
 *   clock: createManualClock(),
 *   generateId: createSequentialIds('env_'),
 * };
 * ```
 */
export interface CodecOptions {
  /** JSON limits, each defaulting to {@link DEFAULT_ENVELOPE_LIMITS}. */
  readonly limits?: JsonLimits;
  /**
   * Who is who: with one (a {@link Topology} is one), senders and recipients must be known, and
   * roles and parent/child directions come from it. Without one, an agent's role is its id and
   * parent/child rules are left to the topology.
   */
  readonly directory?: AgentDirectory;
  /** Resolves `$ref` payloads; without it, a `$ref` payload is refused with `unresolved_ref`. */
  readonly resolveRef?: RefResolver;
  /** Makes ids for created envelopes and replies; nanoid by default. */
  readonly generateId?: IdGenerator;
  /** Stamps `sent_at`; the system clock by default. */
  readonly clock?: Clock;
}

/**
 * An envelope the codec refused. `invalid_envelope` lists the frame's issues; `invalid_payload`
 * carries the payload issues, the absent required fields and the `missing_fields` reply to send
 * back (absent when the refused envelope was itself such a reply, so replies never loop).
 *
 * @example
 * ```ts
 * import type { DecodeRefusal } from '@parley/envelope';
 *
 * function log(refusal: DecodeRefusal): string {
 *   return refusal.code === 'invalid_payload' ? refusal.missingFields.join(', ') : refusal.message;
 * }
 * ```
 */
export type DecodeRefusal =
  | {
      readonly ok: false;
      readonly code: Exclude<DecodeRefusalCode, 'invalid_envelope' | 'invalid_payload' | 'unknown_artifact'>;
      readonly message: string;
      /** Where a JSON depth or forbidden-key problem was found. */
      readonly path?: string;
      /** The frame as received, once it parsed as one (its payload not validated). */
      readonly envelope?: Envelope;
      /** What the `$ref` resolver threw, for `unresolved_ref`. */
      readonly cause?: unknown;
    }
  | {
      readonly ok: false;
      readonly code: 'invalid_envelope';
      readonly message: string;
      readonly issues: readonly ValidationIssue[];
      readonly missingFields: readonly string[];
      /** How many issues were left out to keep the refusal within `REPLY_LIMITS`; absent when none. */
      readonly omitted?: RefusalOmitted;
    }
  | {
      readonly ok: false;
      readonly code: 'unknown_artifact';
      readonly message: string;
      readonly envelope: Envelope;
      /** The artifact name the payload gave (its `$ref`, or its artifact field), if any. */
      readonly artifact?: string;
      /** The artifact names the intent accepts. */
      readonly known: readonly string[];
    }
  | {
      readonly ok: false;
      readonly code: 'invalid_payload';
      readonly message: string;
      readonly envelope: Envelope;
      readonly issues: readonly ValidationIssue[];
      readonly missingFields: readonly string[];
      /** How many issues and missing fields were left out to keep within `REPLY_LIMITS`; absent when none. */
      readonly omitted?: RefusalOmitted;
      readonly reply?: MissingFieldsEnvelope;
      /** The `$ref` name the payload was given by, when it was a reference. */
      readonly ref?: string;
      /** The artifact whose schema it failed, when the intent's payload is an artifact set. */
      readonly artifact?: string;
    };

/**
 * What a refusal left out of its `issues` and `missingFields` to keep within `REPLY_LIMITS`.
 *
 * @example
 * ```ts
 * import type { RefusalOmitted } from '@parley/envelope';
 *
 * const omitted: RefusalOmitted = { issues: 44_950, missingFields: 0 };
 * ```
 */
export interface RefusalOmitted {
  readonly issues: number;
  readonly missingFields: number;
}

/**
 * The result of decoding: a validated envelope, typed by the registry, or a refusal.
 *
 * The envelope's payload is the validated content, with a `$ref` already resolved; `ref` keeps the
 * name it was delivered by, and `artifact` the artifact chosen when the intent's payload is an
 * {@link ArtifactSet}.
 *
 * @example
 * ```ts
 * import { defineIntents, type DecodeResult } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * function text(result: DecodeResult<typeof intents>): string {
 *   if (!result.ok) return result.code;
 *   return result.value.intent === 'notify' ? result.value.payload.message : 'reply';
 * }
 * ```
 */
export type DecodeResult<R> =
  | {
      readonly ok: true;
      readonly value: DecodedEnvelopeOf<R>;
      /** The `$ref` name the payload was delivered by (`Bullish_Brief.json`), when it was a reference. */
      readonly ref?: string;
      /** The artifact whose schema validated the payload, when the intent's payload is an artifact set. */
      readonly artifact?: string;
    }
  | DecodeRefusal;

/**
 * Creates, encodes and decodes envelopes of one registry, with ids, time, JSON limits, a directory
 * and a `$ref` resolver fixed once.
 *
 * @example
 * ```ts
 * import { createCodec, defineIntents, type Codec } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * const codec: Codec<typeof intents> = createCodec(intents);
 * ```
 */
export interface Codec<R extends IntentRegistry> {
  readonly intents: R;
  /**
   * Creates an envelope, typed by the intent's schema; see {@link createEnvelope}.
   * @throws EnvelopeError `unknown_intent`, `invalid_envelope`, `invalid_payload`, `needs_async`.
   */
  create<K extends IntentNameOf<R>>(
    intent: K,
    init: EnvelopeInit<PayloadInputOf<R, K>>,
  ): Envelope<K, PayloadInputOf<R, K> | PayloadRef>;
  /**
   * Writes an envelope as JSON text.
   * @throws EnvelopeError `not_serializable` naming the path of a value JSON cannot carry.
   */
  encode(envelope: Envelope): string;
  /** Decodes untrusted text; never throws. An async resolver or schema is refused with `needs_async`. */
  decode(text: string): DecodeResult<R>;
  /** Decodes untrusted text, awaiting an async `$ref` resolver or payload schema; never rejects. */
  decodeAsync(text: string): Promise<DecodeResult<R>>;
}

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

  /** Everything before the payload: JSON, frame, intent, direction. */
  function decodeFrame(
    text: string,
  ): DecodeRefusal | { readonly envelope: Envelope; readonly schema?: StandardSchemaV1 } {
    const json = safeParseJson(text, limits);
    if (!json.ok)
      return json.path === undefined
        ? { ok: false, code: json.code, message: clip(json.message) }
        : { ok: false, code: json.code, message: clip(json.message), path: clip(json.path) };
    const frameIssues = checkFrame(json.value);
    if (frameIssues !== undefined) return frameRefusal(frameIssues);
    // checkFrame proved every field's type; the object is ours (fresh from JSON.parse) to complete.
    const envelope = json.value as { -readonly [K in keyof Envelope]: Envelope[K] };
    if (envelope.expect_response === undefined) envelope.expect_response = false;
    const intent = envelope.intent;
    if (intent === MISSING_FIELDS_INTENT) {
      if (envelope.in_reply_to === undefined) {
        return frameRefusal([{ path: 'in_reply_to', message: 'Required' }]);
      }
      const refusal = checkDirection({}, intent, envelope.from, envelope.to, directory);
      return refusal === undefined ? { envelope } : { ok: false, ...refusal, envelope };
    }
    if (!intents.has(intent)) {
      return { ok: false, code: 'unknown_intent', message: `Unknown intent "${intent}"`, envelope };
    }
    const refusal = checkDirection(
      intents.directionOf(intent),
      intent,
      envelope.from,
      envelope.to,
      directory,
    );
    if (refusal !== undefined) return { ok: false, ...refusal, envelope };
    return { envelope, schema: intents.get(intent).payload };
  }

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

  /** The schema to validate with: the intent's, or the artifact the `$ref` name or payload names. */
  function pick(
    envelope: Envelope,
    schema: StandardSchemaV1,
    ref: string | undefined,
    payload: unknown,
  ): { readonly schema: StandardSchemaV1; readonly found: Found } | DecodeRefusal {
    const found: { ref?: string; artifact?: string } = {};
    if (ref !== undefined) found.ref = ref;
    if (!isArtifactSet(schema)) return { schema, found };
    const match = (ref === undefined ? undefined : schema.select(ref)) ?? schema.selectFor(payload);
    if (match !== undefined) {
      found.artifact = match.artifact;
      return { schema: match.schema, found };
    }
    const named = ref ?? (payload as Record<string, unknown> | null)?.[schema.field];
    const artifact = typeof named === 'string' ? clip(named) : undefined;
    return {
      ok: false,
      code: 'unknown_artifact',
      message:
        artifact === undefined
          ? `The payload of "${envelope.intent}" names no artifact (no $ref, no "${schema.field}" field)`
          : `"${envelope.intent}" accepts no artifact named "${artifact}"`,
      envelope,
      ...(artifact === undefined ? {} : { artifact }),
      known: schema.names,
    };
  }

  function refsRefusal(envelope: Envelope, message: string, cause?: unknown): DecodeRefusal {
    return cause === undefined
      ? { ok: false, code: 'unresolved_ref', message, envelope }
      : { ok: false, code: 'unresolved_ref', message, envelope, cause };
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
      const framed = decodeFrame(text);
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
      const picked = pick(envelope, framed.schema, ref, payload);
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
      const framed = decodeFrame(text);
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
      const picked = pick(envelope, framed.schema, ref, payload);
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

function frameRefusal(frameIssues: readonly FrameIssue[]): DecodeRefusal {
  const bounded = boundFailure({
    issues: frameIssues.map((issue) => ({
      path: issue.path === '' ? [] : [issue.path],
      pathText: issue.path,
      message: issue.message,
    })),
    missingFields: frameIssues.filter((i) => i.message === 'Required').map((i) => i.path),
  });
  const shown = bounded.issues.slice(0, 10).map((i) => `${i.pathText || '(root)'}: ${i.message}`);
  const more = frameIssues.length - shown.length;
  return {
    ok: false,
    code: 'invalid_envelope',
    message: `The envelope frame is invalid: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
    issues: bounded.issues,
    missingFields: bounded.missingFields,
    ...omittedOf(bounded.omitted),
  };
}

function omittedOf(omitted: Omitted | undefined): { omitted?: RefusalOmitted } {
  return omitted === undefined
    ? {}
    : { omitted: { issues: omitted.issues, missingFields: omitted.missing_fields } };
}

/** What the codec learnt about a payload on the way: its `$ref` name and chosen artifact. */
interface Found {
  readonly ref?: string;
  readonly artifact?: string;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** What a payload schema that threw counts as: an invalid payload, with nothing of the error sent back. */
const SCHEMA_FAILED: ValidationResult<unknown> = {
  ok: false,
  issues: [{ path: [], pathText: '', message: 'The payload could not be checked: its schema failed' }],
  missingFields: [],
};
