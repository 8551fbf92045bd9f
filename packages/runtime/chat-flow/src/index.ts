/**
 * Chat flows kept in a Store: an `@parley/fsm` flow run per chat as a stored session (restarts and
 * replicas pick it up where it was), the chat-flow host that turns a chat's messages into flow steps
 * exactly once, and follow-ups (reminders) that fire at most once per arming.
 *
 * @packageDocumentation
 * @module @parley/chat-flow
 */
export {
  createFlowSessionStore,
  DEFAULT_EFFECT_RETRY_DELAYS_MS,
  DEFAULT_SAVE_RETRY_DELAYS_MS,
  MAX_RETRY_DELAYS,
} from './stored-session-store.js';
export { FLOW_SESSION_REFUSAL_CODES } from './stored-session-refusals.js';
export type { FlowSessionRefusal, FlowSessionRefusalCode } from './stored-session-refusals.js';
export type {
  FlowAcquireOptions,
  FlowEffectResult,
  FlowSaveResult,
  FlowSessionStore,
  FlowSessionStoreEvents,
  FlowSessionStoreOptions,
  StoredFlowSession,
  StoredFlowSessionEvents,
  StoredSubmitResult,
} from './stored-session-types.js';
export { FLOW_SESSION_RECORD_FORMAT } from './stored-session-record.js';
export type { FlowDraft, FlowRetry, FlowSessionRecord } from './stored-session-record.js';
export { createChatFlowHost } from './chat-host.js';
export { CHAT_FLOW_REFUSAL_CODES } from './chat-host-types.js';
export {
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_MAX_DECODED_SESSIONS,
  DEFAULT_MAX_SEEN_MESSAGES,
  DEFAULT_TURN_LEASE_MS,
  MAX_MESSAGE_ID_LENGTH,
} from './chat-host-limits.js';
export type {
  ChatContext,
  ChatEffectClaim,
  ChatFlowHost,
  ChatFlowHostEvents,
  ChatFlowHostOptions,
  ChatFlowLedger,
  ChatFlowRefusalCode,
  ChatFlowResult,
} from './chat-host-types.js';
export { createFollowUps } from './follow-ups.js';
export {
  DEFAULT_MAX_ARMED_FOLLOW_UPS,
  DEFAULT_SEND_LEASE_MS,
  FOLLOW_UP_REFUSAL_CODES,
} from './follow-up-types.js';
export type {
  FollowUp,
  FollowUpRefusalCode,
  FollowUpResult,
  FollowUps,
  FollowUpsEvents,
  FollowUpsOptions,
} from './follow-up-types.js';
export { ChatFlowError, CHAT_FLOW_ERROR_CODES } from './errors.js';
export type { ChatFlowErrorCode } from './errors.js';
