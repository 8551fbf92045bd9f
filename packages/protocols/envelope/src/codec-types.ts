import type { Clock, IdGenerator, JsonLimits, ValidationIssue } from '@parley/core';
import type { AgentDirectory } from './directory.js';
import type { Envelope, EnvelopeInit, EnvelopeOf } from './envelope.js';
import type { DecodeRefusalCode } from './errors.js';
import type { IntentNameOf, IntentRegistry, PayloadInputOf } from './intents.js';
import type { MissingFieldsEnvelope } from './missing-fields-reply.js';
import type { PayloadRef } from './payload-ref.js';

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
 * What a successful decode returns: an envelope of one of the registry's intents, or a
 * `missing_fields` reply. Narrow it on `intent` to get the payload type.
 *
 * @example
 * ```ts
 * import { defineIntents, type DecodedEnvelopeOf } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * function describe(envelope: DecodedEnvelopeOf<typeof intents>): string {
 *   return envelope.intent === 'notify' ? envelope.payload.message : envelope.payload.missing_fields.join();
 * }
 * ```
 */
export type DecodedEnvelopeOf<R> = EnvelopeOf<R> | MissingFieldsEnvelope;

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
