// The chat-flow host's limits and their defaults.

/**
 * How many sessions one chat-flow host keeps open at once unless `maxSessions` says otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CHAT_SESSIONS } from '@parley/chat-flow';
 *
 * console.log(DEFAULT_MAX_CHAT_SESSIONS); // 1000
 * ```
 */
export const DEFAULT_MAX_CHAT_SESSIONS = 1_000;

/**
 * How many of its most recently used open sessions a chat-flow host keeps decoded unless
 * `maxDecodedSessions` says otherwise; an older idle one keeps its record as the JSON text its last
 * write stored, decoded again (without a read) when the chat comes back.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_DECODED_SESSIONS } from '@parley/chat-flow';
 *
 * console.log(DEFAULT_MAX_DECODED_SESSIONS); // 64
 * ```
 */
export const DEFAULT_MAX_DECODED_SESSIONS = 64;

/**
 * How long a chat-flow host holds a session's lease for one turn unless `turnLeaseMs` says
 * otherwise (one minute): another replica's turn of that session is refused `lease_held` meanwhile.
 *
 * @example
 * ```ts
 * import { DEFAULT_TURN_LEASE_MS } from '@parley/chat-flow';
 *
 * console.log(DEFAULT_TURN_LEASE_MS); // 60000
 * ```
 */
export const DEFAULT_TURN_LEASE_MS = 60_000;

/**
 * How many processed message ids each session remembers (in its record) unless `maxSeenMessages`
 * says otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_SEEN_MESSAGES } from '@parley/chat-flow';
 *
 * console.log(DEFAULT_MAX_SEEN_MESSAGES); // 32
 * ```
 */
export const DEFAULT_MAX_SEEN_MESSAGES = 32;

/**
 * The longest message id `reply` takes (256 characters): the session record keeps the ids it has
 * seen, so a longer one is refused `invalid_message_id` before anything is read.
 *
 * @example
 * ```ts
 * import { MAX_MESSAGE_ID_LENGTH } from '@parley/chat-flow';
 *
 * console.log(MAX_MESSAGE_ID_LENGTH); // 256
 * ```
 */
export const MAX_MESSAGE_ID_LENGTH = 256;
