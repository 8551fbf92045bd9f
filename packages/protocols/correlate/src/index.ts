/**
 * request_id correlation for agents and bots: define a request/response protocol with Standard
 * Schemas, send requests with fresh ids and await typed replies, track every request through the
 * shared request machine (pending → approved | rejected | expired | cancelled), and refuse late,
 * duplicate, unknown, wrong-sender and malformed replies as data. Deadlines share one timer, and
 * pending requests can live in a `Store` so they survive restarts and span instances.
 *
 * @packageDocumentation
 * @module @parley/correlate
 */
export { createCorrelator } from './correlator.js';
export { defineProtocol, shutdownProtocol, planApprovalProtocol } from './protocol.js';
export type { Decision, Protocol, ProtocolDefinition, RequestOf, ResponseOf } from './protocol.js';
export { CorrelateError, CORRELATE_ERROR_CODES, CORRELATE_REFUSAL_CODES } from './errors.js';
export type { CorrelateErrorCode, CorrelateRefusalCode } from './errors.js';
export type { CorrelateMessage, ProgressMessage, RequestMessage, ResponseMessage } from './messages.js';
export { parseMessage } from './messages.js';
export { requestStep } from './request-step.js';
export type { RequestStep } from './request-step.js';
export { checkReply, judgeResponse, settledRefusal } from './reply-rules.js';
export type { ReplyCheck, ReplyTarget, ResponseVerdict } from './reply-rules.js';
export {
  DEFAULT_HUMAN_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_REQUESTS,
  DEFAULT_MAX_SETTLED,
  DEFAULT_MAX_TOTAL_MS,
  DEFAULT_RETAIN_SETTLED_MS,
  DEFAULT_TIMEOUT_MS,
} from './defaults.js';
export type { ReceiveResult, CorrelateRefusal } from './receive-result.js';
export type {
  ListFilter,
  RequestProgressOptions,
  Reply,
  RequestOptions,
  RequestPromise,
  TrackedRequest,
  WaitForOptions,
} from './request-types.js';
export type { Correlator, CorrelatorEvents, CorrelatorOptions, CorrelatorStats } from './types.js';
export { REFUSAL_CODES, DEFAULT_MAX_PENDING } from './former-names.js';
export type { RefusalCode, Refusal, ProgressOptions } from './former-names.js';
