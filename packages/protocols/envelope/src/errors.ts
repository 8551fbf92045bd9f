import { ParleyError } from '@parley/core';

/**
 * The codes a refused envelope can have, from {@link Codec.decode}, {@link safeParseEnvelope} and
 * {@link parseEnvelope}: the five JSON safety codes of `@parley/core`, then the envelope's own.
 *
 * @example
 * ```ts
 * import { DECODE_REFUSAL_CODES } from '@parley/envelope';
 *
 * console.log(DECODE_REFUSAL_CODES.includes('unknown_intent')); // true
 * ```
 */
export const DECODE_REFUSAL_CODES = [
  'json_syntax',
  'json_too_large',
  'json_too_deep',
  'json_too_many_nodes',
  'json_forbidden_key',
  'invalid_envelope',
  'unknown_intent',
  'unknown_agent',
  'wrong_direction',
  'unresolved_ref',
  'needs_async',
  'unknown_artifact',
  'invalid_payload',
] as const;

/**
 * A code of a refused envelope; see {@link DECODE_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { DecodeRefusalCode } from '@parley/envelope';
 *
 * const code: DecodeRefusalCode = 'wrong_direction';
 * ```
 */
export type DecodeRefusalCode = (typeof DECODE_REFUSAL_CODES)[number];

/**
 * The codes {@link Topology.check} and {@link Topology.spawn} refuse with.
 *
 * @example
 * ```ts
 * import { TOPOLOGY_REFUSAL_CODES } from '@parley/envelope';
 *
 * console.log(TOPOLOGY_REFUSAL_CODES.includes('lateral_message')); // true
 * ```
 */
export const TOPOLOGY_REFUSAL_CODES = [
  'unknown_agent',
  'not_an_agent',
  'duplicate_agent',
  'depth_exceeded',
  'too_many_children',
  'concurrency_exceeded',
  'depth_mismatch',
  'send_not_allowed',
  'lateral_message',
  'not_parent',
] as const;

/**
 * A code of a topology refusal; see {@link TOPOLOGY_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { TopologyRefusalCode } from '@parley/envelope';
 *
 * const code: TopologyRefusalCode = 'send_not_allowed';
 * ```
 */
export type TopologyRefusalCode = (typeof TOPOLOGY_REFUSAL_CODES)[number];

/**
 * The codes {@link EnvelopeError} can carry: every decode refusal (thrown by {@link parseEnvelope})
 * plus the misuse codes of the package's own API.
 *
 * @example
 * ```ts
 * import { ENVELOPE_ERROR_CODES } from '@parley/envelope';
 *
 * console.log(ENVELOPE_ERROR_CODES.includes('invalid_definition')); // true
 * ```
 */
export const ENVELOPE_ERROR_CODES = [
  ...DECODE_REFUSAL_CODES,
  'invalid_definition',
  'invalid_argument',
  'not_serializable',
  'schema_not_convertible',
  'duplicate_agent',
  'invalid_snapshot',
  'cancelled',
] as const;

/**
 * A code of {@link EnvelopeError}.
 *
 * @example
 * ```ts
 * import type { EnvelopeErrorCode } from '@parley/envelope';
 *
 * const code: EnvelopeErrorCode = 'invalid_payload';
 * ```
 */
export type EnvelopeErrorCode = (typeof ENVELOPE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/envelope` when its API is misused, or by {@link parseEnvelope} when
 * an envelope is refused (`code` is then the refusal code and `details` carries the refusal).
 *
 * @example
 * ```ts
 * import { EnvelopeError, defineIntents } from '@parley/envelope';
 * import { isParleyError } from '@parley/core';
 *
 * try {
 *   defineIntents({ notify: { direction: 'sideways' as 'any', payload: {} as never } });
 * } catch (err) {
 *   console.log(err instanceof EnvelopeError, isParleyError(err, 'invalid_definition')); // true true
 * }
 * ```
 */
export class EnvelopeError extends ParleyError<EnvelopeErrorCode> {}
