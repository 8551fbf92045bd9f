import { type Clock, generateId, type IdGenerator, isParleyError, systemClock, validate } from '@parley/core';
import { isArtifactSet } from './artifacts.js';
import { EnvelopeError } from './errors.js';
import type { IntentNameOf, IntentRegistry, PayloadInputOf, PayloadOf } from './intents.js';
import { checkFrame, type FrameIssue } from './internal/frame.js';
import { isPayloadRef, type PayloadRef } from './payload-ref.js';

/**
 * The structured message agents exchange: who sends what intent to whom, about which task, with a
 * payload that satisfies the intent's schema. Field names are the wire names.
 *
 * @example
 * ```ts
 * import type { Envelope } from '@parley/envelope';
 *
 * const envelope: Envelope<'deliver_report', { $ref: string }> = {
 *   id: 'env_1',
 *   from: 'bullish_researcher',
 *   to: 'quant_strategist',
 *   intent: 'deliver_report',
 *   ref_task: 'quant-pipeline-2026-04-10',
 *   payload: { $ref: 'Bullish_Brief.json' },
 *   expect_response: false,
 *   sent_at: 1_775_800_000_000,
 *   spawn_depth: 2,
 * };
 * ```
 */
export interface Envelope<TIntent extends string = string, TPayload = unknown> {
  /** Unique per envelope; a reply names it in `in_reply_to`. */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly intent: TIntent;
  /** The task or pipeline run this message belongs to. */
  readonly ref_task?: string;
  /** Inline data, or a `{ "$ref": "Name.json" }` reference (resolved by the codec before validation). */
  readonly payload: TPayload;
  /** `true` only for a blocking send, which the topology allows between depth-0 agents alone. */
  readonly expect_response: boolean;
  /** Correlates a request and its response (see `@parley/correlate`). */
  readonly request_id?: string;
  /** The `id` of the envelope this one answers. */
  readonly in_reply_to?: string;
  /** When the sender created it (epoch ms). */
  readonly sent_at: number;
  /** The sender's spawn depth: 0 for an independent agent. */
  readonly spawn_depth: number;
}

/**
 * The envelope type of one intent (or, distributed, of every intent) of a registry, with the
 * validated payload type.
 *
 * @example
 * ```ts
 * import { defineIntents, type EnvelopeOf } from '@parley/envelope';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ notify: { direction: 'any', payload: z.object({ message: z.string() }) } });
 * function text(envelope: EnvelopeOf<typeof intents, 'notify'>): string {
 *   return envelope.payload.message;
 * }
 * ```
 */
export type EnvelopeOf<R, K extends IntentNameOf<R> = IntentNameOf<R>> =
  K extends IntentNameOf<R> ? Envelope<K, PayloadOf<R, K>> : never;

/**
 * The fields an author gives to {@link createEnvelope}; `id` and `sent_at` are generated.
 *
 * @example
 * ```ts
 * import type { EnvelopeInit } from '@parley/envelope';
 *
 * const init: EnvelopeInit<{ message: string }> = { from: 'ceo', to: 'discord', payload: { message: 'done' } };
 * ```
 */
export interface EnvelopeInit<TPayload> {
  readonly from: string;
  readonly to: string;
  readonly payload: TPayload | PayloadRef;
  readonly ref_task?: string;
  /** `false` by default. */
  readonly expect_response?: boolean;
  readonly request_id?: string;
  readonly in_reply_to?: string;
  /** The sender's spawn depth; 0 by default. */
  readonly spawn_depth?: number;
}

/**
 * Where {@link createEnvelope} gets ids and time.
 *
 * @example
 * ```ts
 * import type { CreateEnvelopeOptions } from '@parley/envelope';
 * import { createManualClock, createSequentialIds } from '@parley/core';
 *
 * const options: CreateEnvelopeOptions = { clock: createManualClock(), generateId: createSequentialIds('env_') };
 * ```
 */
export interface CreateEnvelopeOptions {
  /** Makes envelope ids; nanoid by default. */
  readonly generateId?: IdGenerator;
  /** Stamps `sent_at`; the system clock by default. */
  readonly clock?: Clock;
}

/**
 * Creates an envelope of one intent, with a fresh id and timestamp, after validating its payload.
 *
 * Use it (or the bound {@link Codec.create}) to author messages: the payload is typed by the
 * intent's schema, and a `$ref` payload is accepted as is (it is validated where it is resolved).
 *
 * @throws EnvelopeError `unknown_intent` for a name the registry lacks; `invalid_envelope` when a
 * frame field is empty, too long or of the wrong type; `unknown_artifact` when the intent's payload
 * is an artifact set and an inline payload names none of its artifacts; `invalid_payload` (with `details.missingFields`
 * and `details.issues`) when the payload fails its schema; `needs_async` when the schema is async.
 * @example
 * ```ts
 * import { createEnvelope, defineIntents } from '@parley/envelope';
 * import { createManualClock, createSequentialIds } from '@parley/core';
 * import { z } from 'zod';
 *
 * const intents = defineIntents({ deliver_report: { direction: 'up', payload: z.object({ summary: z.string() }) } });
 * const envelope = createEnvelope(
 *   intents,
 *   'deliver_report',
 *   { from: 'analyst', to: 'lead', ref_task: 'run-1', payload: { summary: 'ok' }, spawn_depth: 1 },
 *   { clock: createManualClock({ now: 1000 }), generateId: createSequentialIds('env_') },
 * );
 * console.log(envelope.id, envelope.sent_at); // env_1 1000
 * ```
 */
export function createEnvelope<R extends IntentRegistry, K extends IntentNameOf<R>>(
  registry: R,
  intent: K,
  init: EnvelopeInit<PayloadInputOf<R, K>>,
  options: CreateEnvelopeOptions = {},
): Envelope<K, PayloadInputOf<R, K> | PayloadRef> {
  if (!registry.has(intent)) {
    throw new EnvelopeError('unknown_intent', `Unknown intent "${intent}"`, { details: { intent } });
  }
  const envelope = buildEnvelope(
    intent,
    init,
    options.generateId ?? generateId,
    options.clock ?? systemClock,
  );
  const issues = checkFrame(envelope);
  if (issues !== undefined) throw frameError(issues);
  if (!isPayloadRef(envelope.payload)) {
    const schema = registry.get(intent).payload;
    if (isArtifactSet(schema) && schema.selectFor(envelope.payload) === undefined) {
      const named = (envelope.payload as Record<string, unknown> | null)?.[schema.field];
      throw new EnvelopeError('unknown_artifact', `The payload of "${intent}" names no known artifact`, {
        details: { intent, artifact: typeof named === 'string' ? named : undefined, known: schema.names },
      });
    }
    const result = validateOrRethrow(schema, envelope.payload);
    if (!result.ok) {
      throw new EnvelopeError('invalid_payload', `The payload of "${intent}" does not match its schema`, {
        details: { intent, missingFields: result.missingFields, issues: result.issues },
      });
    }
  }
  return envelope;
}

/** @internal */
export function frameError(issues: readonly FrameIssue[]): EnvelopeError {
  const first = issues[0] as FrameIssue;
  return new EnvelopeError('invalid_envelope', first.message, { details: { issues } });
}

/** Calls core's validate, turning an async schema into `needs_async`. @internal */
export function validateOrRethrow(
  schema: Parameters<typeof validate>[0],
  value: unknown,
): ReturnType<typeof validate> {
  try {
    return validate(schema, value);
  } catch (cause) {
    if (!isParleyError(cause, 'async_schema')) throw cause;
    throw new EnvelopeError('needs_async', 'This payload schema validates asynchronously', { cause });
  }
}

function buildEnvelope<K extends string, P>(
  intent: K,
  init: EnvelopeInit<P>,
  nextId: IdGenerator,
  clock: Clock,
): Envelope<K, P | PayloadRef> {
  const envelope: {
    -readonly [F in keyof Envelope<K, P | PayloadRef>]: Envelope<K, P | PayloadRef>[F];
  } = {
    id: nextId(),
    from: init.from,
    to: init.to,
    intent,
    payload: init.payload,
    expect_response: init.expect_response ?? false,
    sent_at: clock.now(),
    spawn_depth: init.spawn_depth ?? 0,
  };
  if (init.ref_task !== undefined) envelope.ref_task = init.ref_task;
  if (init.request_id !== undefined) envelope.request_id = init.request_id;
  if (init.in_reply_to !== undefined) envelope.in_reply_to = init.in_reply_to;
  return envelope;
}
