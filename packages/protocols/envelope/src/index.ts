/**
 * Validated agent messages: envelopes with a payload schema per intent, a codec that decodes
 * untrusted JSON into a typed envelope or a refusal (with a ready `missing_fields` reply), JSON
 * Schema export for prompts, and the spawn-tree topology that decides who may message whom.
 *
 * @packageDocumentation
 * @module @parley/envelope
 */
export { createEnvelope } from './envelope.js';
export type { Envelope, EnvelopeInit, EnvelopeOf, CreateEnvelopeOptions } from './envelope.js';
export { createMissingFieldsReply, MISSING_FIELDS_INTENT } from './missing-fields-reply.js';
export type { MissingFieldsEnvelope, MissingFieldsPayload } from './missing-fields-reply.js';
export { isPayloadRef, REF_PATTERN } from './payload-ref.js';
export type { PayloadRef } from './payload-ref.js';
export { defineIntents } from './intents.js';
export type { Direction, DirectionRule } from './direction.js';
export type {
  IntentSpec,
  IntentSpecs,
  IntentRegistry,
  IntentNameOf,
  PayloadOf,
  PayloadInputOf,
} from './intents.js';
export { defineAgentIntents } from './agent-intents.js';
export type {
  AgentIntentsOptions,
  AgentIntentSpecs,
  AgentPayloadSchemas,
  DefaultReportSchema,
} from './agent-intents.js';
export { defineArtifacts, isArtifactSet } from './artifacts.js';
export type { ArtifactSchemas, ArtifactSet, ArtifactSetOptions, ArtifactMatch } from './artifacts.js';
export { createCodec, safeParseEnvelope, parseEnvelope, DEFAULT_ENVELOPE_LIMITS } from './codec.js';
export type {
  Codec,
  CodecOptions,
  DecodedEnvelopeOf,
  DecodeResult,
  DecodeRefusal,
  RefResolver,
  RefusalOmitted,
} from './codec-types.js';
export { REPLY_LIMITS } from './reply-limits.js';
export { toIntentJsonSchemas, toEnvelopeJsonSchema } from './json-schema.js';
export { createTopology } from './topology.js';
export { DEFAULT_TOPOLOGY_LIMITS, MAX_TOPOLOGY_LIMITS } from './topology-types.js';
export type {
  Topology,
  TopologyOptions,
  TopologyLimits,
  TopologySnapshot,
  TopologyCheck,
  TopologyRefusal,
  TopologyEvents,
  SpawnRequest,
  SpawnResult,
  SpawnWaitOptions,
} from './topology-types.js';
export type { AgentDirectory, AgentInfo } from './directory.js';
export {
  EnvelopeError,
  ENVELOPE_ERROR_CODES,
  DECODE_REFUSAL_CODES,
  TOPOLOGY_REFUSAL_CODES,
} from './errors.js';
export type { EnvelopeErrorCode, DecodeRefusalCode, TopologyRefusalCode } from './errors.js';
