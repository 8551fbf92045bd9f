/**
 * Blocking sends between depth-0 agents (the reference protocol's `sessions_send`): the sender
 * blocks for the reply up to a timeout, a conversation has at most five rounds, only two
 * independent agents may talk this way, and every "no" comes back as data. Built on
 * `@parley/correlate` (one request per round, absolute deadlines, restart from a `Store`) and
 * `@parley/envelope`'s topology (who may send to whom).
 *
 * @packageDocumentation
 * @module @parley/peers
 */
export { createPeers } from './peers.js';
export {
  peerSendProtocol,
  DEFAULT_MAX_CONVERSATION_ROUNDS,
  MAX_ROUNDS_CAP,
  DEFAULT_SEND_TIMEOUT_MS,
  DEFAULT_CONVERSATION_MS,
  DEFAULT_MAX_CONVERSATIONS,
  DEFAULT_MAX_MESSAGE_CHARS,
} from './protocol.js';
export type { PeerSendPayload, PeerSendAnswer } from './protocol.js';
export type {
  Peers,
  PeersOptions,
  PeersEvents,
  PeerSendOptions,
  PeerSendResult,
  PeerRefusal,
  PeerAnswer,
  IncomingSend,
  ConversationView,
} from './types.js';
export { PeersError, PEERS_ERROR_CODES, PEER_REFUSAL_CODES } from './errors.js';
export type { PeersErrorCode, PeerRefusalCode } from './errors.js';
export { DEFAULT_MAX_ROUNDS } from './former-names.js';
