/**
 * Feishu / Lark for Parley: a `@parley/bus` channel adapter on the official
 * `@larksuiteoapi/node-sdk`. Received messages (mentions of the bot stripped), recalls and card
 * button clicks become bus inputs with Feishu's event ids and times; outbound messages go out as
 * text or interactive cards whose buttons carry Parley's (signed) values; refused and
 * rate-limited sends reject with typed errors the bus reports.
 *
 * @packageDocumentation
 * @module @parley/feishu
 */
export { createFeishuAdapter } from './adapter.js';
export type {
  FeishuAdapter,
  FeishuAdapterOptions,
  FeishuClient,
  FeishuDispatcher,
  FeishuEventHandles,
  FeishuCardResponse,
  FeishuApiAnswer,
} from './types.js';
export { toFeishuMessage, FEISHU_CARD_MAX_BYTES, FEISHU_TEXT_MAX_BYTES } from './outbound.js';
export type { FeishuMessageBody } from './outbound.js';
export type { FeishuMessageEvent, FeishuRecallEvent, FeishuCardAction, FeishuUserId } from './inbound.js';
export { FeishuAdapterError, FeishuError, FEISHU_ERROR_CODES } from './errors.js';
export type { FeishuErrorCode } from './errors.js';
