/**
 * A stand-in of DingTalk for testing a stream-mode bot offline with the real `dingtalk-stream`
 * client: the stream gateway and WebSocket it connects to (robot messages and card callbacks
 * pushed, acknowledgements recorded) and the OpenAPI the adapter sends with. Node only: import it
 * from `@parley/dingtalk/testing` (it needs `@parley/testing`, an optional peer); the main entry
 * stays free of it.
 *
 * @packageDocumentation
 * @module @parley/dingtalk/testing
 */
export { createDingTalkStandIn } from './standin.js';
export type { DingTalkStandIn } from './standin.js';
export type {
  DingTalkAck,
  DingTalkPush,
  DingTalkSentMessage,
  DingTalkStandInCardOptions,
  DingTalkStandInClickOptions,
  DingTalkStandInFault,
  DingTalkStandInMessageOptions,
  DingTalkStandInOptions,
  DingTalkStandInRequest,
} from './standin-types.js';
