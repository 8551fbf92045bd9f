/**
 * A stand-in of Feishu for testing a bot offline with the real `@larksuiteoapi/node-sdk`: the
 * OpenAPI its `Client` sends with, and the event subscription that delivers messages, recalls
 * and card clicks to the bot's webhook. Node only: import it from `@parley/feishu/testing`
 * (it needs `@parley/testing`, an optional peer); the main entry stays free of it.
 *
 * @packageDocumentation
 * @module @parley/feishu/testing
 */
export { createFeishuStandIn } from './standin.js';
export type { FeishuStandIn } from './standin.js';
export type {
  FeishuDelivery,
  FeishuSentMessage,
  FeishuStandInCardOptions,
  FeishuStandInClickOptions,
  FeishuStandInFault,
  FeishuStandInMessageOptions,
  FeishuStandInOptions,
  FeishuStandInRecallOptions,
  FeishuStandInRequest,
  FeishuSubscribeResult,
  FeishuSubscription,
} from './standin-types.js';
