import type { Clock, IdGenerator } from '@parley/core';
import { generateId, systemClock } from '@parley/core';
import type { CreateEnvelopeOptions, Envelope } from './envelope.js';
import { boundFailure, clip, omittedMarker } from './reply-limits.js';

/**
 * The intent of the reply the codec writes when a payload fails its schema.
 *
 * @example
 * ```ts
 * import { MISSING_FIELDS_INTENT } from '@parley/envelope';
 *
 * console.log(MISSING_FIELDS_INTENT); // 'missing_fields'
 * ```
 */
export const MISSING_FIELDS_INTENT = 'missing_fields';

/**
 * The payload of a `missing_fields` reply: the refused intent, the absent required fields (never
 * nulls), and every issue with its path.
 *
 * @example
 * ```ts
 * import type { MissingFieldsPayload } from '@parley/envelope';
 *
 * const payload: MissingFieldsPayload = {
 *   intent: 'deliver_report',
 *   missing_fields: ['key_levels[0].evidence', 'invalidation'],
 *   issues: [{ path: 'invalidation', message: 'Invalid input: expected string, received undefined' }],
 * };
 * ```
 */
export interface MissingFieldsPayload {
  readonly intent: string;
  readonly missing_fields: readonly string[];
  readonly issues: readonly { readonly path: string; readonly message: string }[];
  /**
   * How many issues and missing fields were left out to keep the reply within `REPLY_LIMITS`
   * (the last issue then says so in words); absent when nothing was.
   */
  readonly omitted?: { readonly issues: number; readonly missing_fields: number };
}

/**
 * A `missing_fields` reply, sent back to the author of a refused envelope.
 *
 * @example
 * ```ts
 * import type { MissingFieldsEnvelope } from '@parley/envelope';
 *
 * function fieldsToFix(reply: MissingFieldsEnvelope): readonly string[] {
 *   return reply.payload.missing_fields;
 * }
 * ```
 */
export type MissingFieldsEnvelope = Envelope<typeof MISSING_FIELDS_INTENT, MissingFieldsPayload>;

/**
 * Builds the `missing_fields` reply to an envelope whose payload failed validation, addressed
 * back to its author and naming it in `in_reply_to`.
 *
 * The codec writes this reply itself; call this when a payload was checked some other way. The
 * reply keeps to `REPLY_LIMITS` however many issues it is given: at most 50 issues and 50 missing
 * fields within 32 KiB, texts cut to 256 characters, and what is left out counted in
 * `payload.omitted` and named by a last issue ("and N more…"), so it always decodes under the
 * default limits.
 *
 * @example
 * ```ts
 * import { createMissingFieldsReply, type Envelope } from '@parley/envelope';
 * import { createManualClock, createSequentialIds } from '@parley/core';
 *
 * const refused: Envelope = {
 *   id: 'env_7', from: 'bull', to: 'lead', intent: 'deliver_report', payload: {},
 *   expect_response: false, sent_at: 0, spawn_depth: 2,
 * };
 * const reply = createMissingFieldsReply(
 *   refused,
 *   { missingFields: ['thesis'], issues: [{ pathText: 'thesis', message: 'Required' }] },
 *   { spawn_depth: 1, clock: createManualClock(), generateId: createSequentialIds('env_') },
 * );
 * console.log(reply.to, reply.in_reply_to, reply.payload.missing_fields); // bull env_7 ['thesis']
 * ```
 */
export function createMissingFieldsReply(
  refused: Envelope,
  failure: {
    readonly missingFields: readonly string[];
    readonly issues: readonly { readonly pathText: string; readonly message: string }[];
  },
  options: CreateEnvelopeOptions & { readonly spawn_depth?: number } = {},
): MissingFieldsEnvelope {
  return buildMissingFieldsReply(
    refused,
    failure,
    options.generateId ?? generateId,
    options.clock ?? systemClock,
    options.spawn_depth ?? 0,
  );
}

/** The reply itself, without option objects (the codec calls it on its hot refusal path). @internal */
export function buildMissingFieldsReply(
  refused: Envelope,
  failure: Parameters<typeof createMissingFieldsReply>[1],
  nextId: IdGenerator,
  clock: Clock,
  spawnDepth: number,
): MissingFieldsEnvelope {
  const bounded = boundFailure(failure);
  const issues = bounded.issues.map((issue) => ({ path: issue.pathText, message: issue.message }));
  const payload: { -readonly [F in keyof MissingFieldsPayload]: MissingFieldsPayload[F] } = {
    intent: clip(refused.intent),
    missing_fields: bounded.missingFields,
    issues,
  };
  if (bounded.omitted !== undefined) {
    issues.push(omittedMarker(bounded.omitted));
    payload.omitted = bounded.omitted;
  }
  const reply: { -readonly [F in keyof MissingFieldsEnvelope]: MissingFieldsEnvelope[F] } = {
    id: nextId(),
    from: clip(refused.to),
    to: clip(refused.from),
    intent: MISSING_FIELDS_INTENT,
    payload,
    expect_response: false,
    in_reply_to: clip(refused.id),
    sent_at: clock.now(),
    spawn_depth: spawnDepth,
  };
  if (refused.ref_task !== undefined) reply.ref_task = clip(refused.ref_task);
  if (refused.request_id !== undefined) reply.request_id = clip(refused.request_id);
  return reply;
}
