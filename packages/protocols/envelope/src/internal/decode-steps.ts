import { type JsonLimits, type StandardSchemaV1, safeParseJson, type ValidationResult } from '@parley/core';
import { isArtifactSet } from '../artifacts.js';
import type { DecodeRefusal, RefusalOmitted } from '../codec-types.js';
import type { AgentDirectory } from '../directory.js';
import type { Envelope } from '../envelope.js';
import { checkDirection } from '../direction.js';
import type { IntentRegistry } from '../intents.js';
import { MISSING_FIELDS_INTENT } from '../missing-fields-reply.js';
import { boundFailure, clip, type Omitted } from '../reply-limits.js';
import { checkFrame, type FrameIssue } from './frame.js';

/** What the codec learnt about a payload on the way: its `$ref` name and chosen artifact. */
export interface Found {
  readonly ref?: string;
  readonly artifact?: string;
}

/** Everything before the payload: JSON, frame, intent, direction. */
export function decodeFrame(
  text: string,
  intents: IntentRegistry,
  limits: JsonLimits,
  directory: AgentDirectory | undefined,
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
  const refusal = checkDirection(intents.directionOf(intent), intent, envelope.from, envelope.to, directory);
  if (refusal !== undefined) return { ok: false, ...refusal, envelope };
  return { envelope, schema: intents.get(intent).payload };
}

/** The schema to validate with: the intent's, or the artifact the `$ref` name or payload names. */
export function pickSchema(
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

export function refsRefusal(envelope: Envelope, message: string, cause?: unknown): DecodeRefusal {
  return cause === undefined
    ? { ok: false, code: 'unresolved_ref', message, envelope }
    : { ok: false, code: 'unresolved_ref', message, envelope, cause };
}

export function frameRefusal(frameIssues: readonly FrameIssue[]): DecodeRefusal {
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

export function omittedOf(omitted: Omitted | undefined): { omitted?: RefusalOmitted } {
  return omitted === undefined
    ? {}
    : { omitted: { issues: omitted.issues, missingFields: omitted.missing_fields } };
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** What a payload schema that threw counts as: an invalid payload, with nothing of the error sent back. */
export const SCHEMA_FAILED: ValidationResult<unknown> = {
  ok: false,
  issues: [{ path: [], pathText: '', message: 'The payload could not be checked: its schema failed' }],
  missingFields: [],
};
