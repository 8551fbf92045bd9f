import { ParleyError } from '@parley/core';

/**
 * The codes {@link PeersError} can carry: misuse of the API, never a peer's or a model's bad input.
 *
 * @example
 * ```ts
 * import { PEERS_ERROR_CODES } from '@parley/peers';
 *
 * console.log(PEERS_ERROR_CODES.includes('invalid_argument')); // true
 * ```
 */
export const PEERS_ERROR_CODES = ['invalid_argument'] as const;

/**
 * A code of {@link PeersError}.
 *
 * @example
 * ```ts
 * import type { PeersErrorCode } from '@parley/peers';
 *
 * const code: PeersErrorCode = 'invalid_argument';
 * ```
 */
export type PeersErrorCode = (typeof PEERS_ERROR_CODES)[number];

/**
 * The error `@parley/peers` throws when it is misused (a bad limit, a missing topology). A send
 * that may not happen is never an error: it comes back as a {@link PeerRefusal}.
 *
 * @example
 * ```ts
 * import { PeersError } from '@parley/peers';
 * import { isParleyError } from '@parley/core';
 *
 * const err = new PeersError('invalid_argument', 'maxRounds must be 1 to 20');
 * console.log(isParleyError(err, 'invalid_argument')); // true
 * ```
 */
export class PeersError extends ParleyError<PeersErrorCode> {}

/**
 * Why a blocking send did not return a reply, as data: the round limit, the deadline, a reused id,
 * a peer that refused, and the rest. Topology refusals from `@parley/envelope` (`send_not_allowed`
 * for anything but two depth-0 agents, `unknown_agent`…) come back with their own codes.
 *
 * @example
 * ```ts
 * import { PEER_REFUSAL_CODES } from '@parley/peers';
 *
 * console.log(PEER_REFUSAL_CODES.includes('round_limit')); // true
 * ```
 */
export const PEER_REFUSAL_CODES = [
  'round_limit',
  'timeout',
  'cancelled',
  'closed',
  'id_reused',
  'conversation_ended',
  'conversation_expired',
  'too_many_conversations',
  'too_many_pending',
  'invalid_request',
  'message_too_large',
  'refused_by_peer',
  'not_listening',
  'handler_failed',
  'send_failed',
  'store_failed',
] as const;

/**
 * A code of a refused send; see {@link PEER_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { PeerRefusalCode } from '@parley/peers';
 *
 * const code: PeerRefusalCode = 'timeout';
 * ```
 */
export type PeerRefusalCode = (typeof PEER_REFUSAL_CODES)[number];

/** @internal The words of an error, or of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
