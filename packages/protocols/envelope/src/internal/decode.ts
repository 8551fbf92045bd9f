import type { Clock, IdGenerator, JsonLimits, StandardSchemaV1, ValidationResult } from '@parley/core';
import { validateAsync } from '@parley/core';
import type { DecodedEnvelopeOf, DecodeRefusal, DecodeResult, RefResolver } from '../codec-types.js';
import type { AgentDirectory } from '../directory.js';
import { type Envelope, validateOrRethrow } from '../envelope.js';
import { EnvelopeError } from '../errors.js';
import type { IntentRegistry } from '../intents.js';
import { buildMissingFieldsReply } from '../missing-fields-reply.js';
import { isPayloadRef, type PayloadRef, REF_PATTERN } from '../payload-ref.js';
import { boundFailure } from '../reply-limits.js';
import {
  decodeFrame,
  type Found,
  isThenable,
  omittedOf,
  pickSchema,
  refsRefusal,
  SCHEMA_FAILED,
} from './decode-steps.js';
import { checkMissingFieldsPayload } from './missing-fields.js';

/** What a codec decodes with: its registry, JSON limits, directory, `$ref` resolver, ids and clock. */
export interface DecodeContext<R extends IntentRegistry> {
  readonly intents: R;
  readonly limits: JsonLimits;
  readonly directory: AgentDirectory | undefined;
  readonly resolveRef: RefResolver | undefined;
  readonly nextId: IdGenerator;
  readonly clock: Clock;
}

/** Where both decoders stand once the frame is read: an answer, or the envelope, its schema and `$ref`. */
type Begun<R extends IntentRegistry> =
  | { readonly done: DecodeResult<R> }
  | {
      readonly envelope: Envelope;
      readonly schema: StandardSchemaV1;
      readonly ref: string | undefined;
    };

/** Reads the frame: an envelope without a payload schema is answered here; a `$ref` is looked up. */
function begin<R extends IntentRegistry>(ctx: DecodeContext<R>, text: string): Begun<R> {
  const framed = decodeFrame(text, ctx.intents, ctx.limits, ctx.directory);
  if ('ok' in framed) return { done: framed };
  const { envelope, schema } = framed;
  if (schema === undefined)
    return { done: finish(ctx, envelope, checkMissingFieldsPayload(envelope), false) };
  if (!isPayloadRef(envelope.payload)) return { envelope, schema, ref: undefined };
  const found = lookUp(ctx, envelope);
  return 'ok' in found ? { done: found } : { envelope, schema, ref: found.ref };
}

/** Decodes envelope text with a synchronous resolver and schemas; async ones are refused `needs_async`. */
export function decodeEnvelope<R extends IntentRegistry>(
  ctx: DecodeContext<R>,
  text: string,
): DecodeResult<R> {
  const begun = begin(ctx, text);
  if ('done' in begun) return begun.done;
  const { envelope, ref } = begun;
  let payload: unknown = envelope.payload;
  if (ref !== undefined) {
    try {
      payload = (ctx.resolveRef as RefResolver)(ref, envelope); // begin proved it is set
    } catch (cause) {
      return refsRefusal(envelope, `The resolver failed for $ref "${ref}"`, cause);
    }
    if (isThenable(payload)) {
      payload.then(undefined, () => {}); // never leave a rejection unhandled
      return needsAsync(envelope, 'The $ref resolver is async; use decodeAsync');
    }
    if (payload === undefined) return refsRefusal(envelope, `No artifact named "${ref}"`);
  }
  const picked = pickSchema(envelope, begun.schema, ref, payload);
  if ('ok' in picked) return picked;
  let validation: ValidationResult<unknown>;
  try {
    validation = validateOrRethrow(picked.schema, payload);
  } catch (cause) {
    if (!(cause instanceof EnvelopeError)) throw cause;
    return needsAsync(envelope, 'The payload schema is async; use decodeAsync');
  }
  return finish(ctx, envelope, validation, true, picked.found);
}

/** Decodes envelope text, awaiting the `$ref` resolver and the payload schema. */
export async function decodeEnvelopeAsync<R extends IntentRegistry>(
  ctx: DecodeContext<R>,
  text: string,
): Promise<DecodeResult<R>> {
  const begun = begin(ctx, text);
  if ('done' in begun) return begun.done;
  const { envelope, ref } = begun;
  let payload: unknown = envelope.payload;
  if (ref !== undefined) {
    try {
      payload = await (ctx.resolveRef as RefResolver)(ref, envelope); // begin proved it is set
    } catch (cause) {
      return refsRefusal(envelope, `The resolver failed for $ref "${ref}"`, cause);
    }
    if (payload === undefined) return refsRefusal(envelope, `No artifact named "${ref}"`);
  }
  const picked = pickSchema(envelope, begun.schema, ref, payload);
  if ('ok' in picked) return picked;
  let validation: ValidationResult<unknown>;
  try {
    validation = await validateAsync(picked.schema, payload);
  } catch {
    // A payload schema that throws (a transform, a refinement) refuses the envelope, as data.
    validation = SCHEMA_FAILED;
  }
  return finish(ctx, envelope, validation, true, picked.found);
}

/** The refusal of the synchronous decoder for an async resolver or schema. */
function needsAsync(envelope: Envelope, message: string): DecodeRefusal {
  return { ok: false, code: 'needs_async', message, envelope };
}

/** The decoded envelope when its payload is valid, else `invalid_payload` (with a `missing_fields` reply when replyable). */
function finish<R extends IntentRegistry>(
  ctx: DecodeContext<R>,
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
  const { directory } = ctx;
  const spawnDepth = directory === undefined ? 0 : (directory.agent(envelope.to)?.depth ?? 0);
  const reply = buildMissingFieldsReply(envelope, validation, ctx.nextId, ctx.clock, spawnDepth);
  return { ...refusal, reply, ...found };
}

/** The `$ref` to resolve, or why it cannot be. */
function lookUp(
  ctx: DecodeContext<IntentRegistry>,
  envelope: Envelope,
): { readonly ref: string } | DecodeRefusal {
  const ref = (envelope.payload as PayloadRef).$ref;
  if (!REF_PATTERN.test(ref)) return refsRefusal(envelope, 'The $ref is not a plain artifact name');
  if (ctx.resolveRef === undefined) return refsRefusal(envelope, `No resolver for $ref "${ref}"`);
  return { ref };
}
