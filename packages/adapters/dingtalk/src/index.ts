/**
 * DingTalk for Parley: a `@parley/bus` channel adapter on `dingtalk-stream` (stream mode). Robot
 * messages and interactive card callbacks pushed over the stream become bus inputs with
 * DingTalk's message ids and times, acknowledged once the bus has taken them; outbound messages
 * go out through the OpenAPI's robot send endpoints (text, markdown) or as interactive cards whose
 * buttons carry Parley's (signed) values; refused and rate-limited sends reject with typed errors.
 *
 * @packageDocumentation
 * @module @parley/dingtalk
 */
export { createDingTalkAdapter } from './adapter.js';
export type { DingTalkAdapterOptions } from './adapter.js';
export type { DingTalkStreamClient, DingTalkStreamFrame } from './stream-client.js';
export { toRobotMessage, toCardParams } from './outbound.js';
export type { DingTalkRobotBody } from './outbound.js';
export type { DingTalkRobotMessage, DingTalkCardCallback } from './inbound.js';
export { DingTalkAdapterError, DingTalkError, DINGTALK_ERROR_CODES } from './errors.js';
export type { DingTalkErrorCode } from './errors.js';
