import { defineProtocol, type Protocol } from '@parley/correlate';
// zod/mini: the same validation as zod's classic API at a fraction of its bundle size.
import * as z from 'zod/mini';

/** The most rounds one conversation may have: 5, as the reference protocol's `sessions_send`.
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONVERSATION_ROUNDS } from '@parley/peers';
 *
 * console.log(DEFAULT_MAX_CONVERSATION_ROUNDS); // 5
 * ```
 */
export const DEFAULT_MAX_CONVERSATION_ROUNDS = 5;
/** The hard cap of `maxRounds`: 20.
 * @example
 * ```ts
 * import { MAX_ROUNDS_CAP } from '@parley/peers';
 *
 * console.log(MAX_ROUNDS_CAP); // 20
 * ```
 */
export const MAX_ROUNDS_CAP = 20;
/** How long a sender blocks for one reply by default: 30 s.
 * @example
 * ```ts
 * import { DEFAULT_SEND_TIMEOUT_MS } from '@parley/peers';
 *
 * console.log(DEFAULT_SEND_TIMEOUT_MS); // 30000
 * ```
 */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
/** How long a conversation may last from its first send: 10 min.
 * @example
 * ```ts
 * import { DEFAULT_CONVERSATION_MS } from '@parley/peers';
 *
 * console.log(DEFAULT_CONVERSATION_MS); // 600000
 * ```
 */
export const DEFAULT_CONVERSATION_MS = 10 * 60_000;
/** Conversations one endpoint may have open at once by default: 1 000.
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONVERSATIONS } from '@parley/peers';
 *
 * console.log(DEFAULT_MAX_CONVERSATIONS); // 1000
 * ```
 */
export const DEFAULT_MAX_CONVERSATIONS = 1_000;
/** The largest message or reply, as canonical JSON characters: 16 000.
 * @example
 * ```ts
 * import { DEFAULT_MAX_MESSAGE_CHARS } from '@parley/peers';
 *
 * console.log(DEFAULT_MAX_MESSAGE_CHARS); // 16000
 * ```
 */
export const DEFAULT_MAX_MESSAGE_CHARS = 16_000;

/** Ids a conversation or a send may have: what fits in a store key and a request id. */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** What travels as the request of one round. */
export interface PeerSendPayload {
  readonly conversation_id: string;
  readonly round: number;
  readonly message: unknown;
}

/** What travels back: the reply, or the responder's refusal code. */
export interface PeerSendAnswer {
  readonly reply?: unknown;
  readonly end?: boolean | undefined;
  readonly refused?: string | undefined;
  readonly reason?: string | undefined;
}

/**
 * The correlate protocol one blocking send travels on (`sessions_send`): the request names the
 * conversation and the round, the response carries the reply or the responder's refusal code. A
 * reply approves the request; a refusal rejects it with the code as its reason.
 *
 * @example
 * ```ts
 * import { peerSendProtocol } from '@parley/peers';
 *
 * console.log(peerSendProtocol.name); // sessions_send
 * console.log(peerSendProtocol.decide({ refused: 'round_limit' })); // { approve: false, reason: 'round_limit' }
 * ```
 */
export const peerSendProtocol: Protocol<'sessions_send', PeerSendPayload, PeerSendAnswer> =
  /* @__PURE__ */ defineProtocol('sessions_send', {
    request: z.object({
      conversation_id: z.string().check(z.regex(ID_PATTERN, 'conversation_id must be a short id')),
      round: z.int().check(z.gte(1), z.lte(MAX_ROUNDS_CAP)),
      message: z.unknown(),
    }),
    response: z.object({
      reply: z.optional(z.unknown()),
      end: z.optional(z.boolean()),
      refused: z.optional(z.string().check(z.maxLength(64))),
      reason: z.optional(z.string().check(z.maxLength(4000))),
    }),
    decide: (answer) =>
      answer.refused === undefined ? { approve: true } : { approve: false, reason: answer.refused },
  });
