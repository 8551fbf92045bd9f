/**
 * One frame DingTalk pushes on the stream (`DWClientDownStream`): its headers and its `data`,
 * the JSON text of the message or callback.
 *
 * @example
 * ```ts
 * import type { DingTalkStreamFrame } from '@parley/dingtalk';
 *
 * const frame: DingTalkStreamFrame = {
 *   headers: { messageId: 'a1b2c3d4-5e6f', topic: '/v1.0/im/bot/messages/get' },
 *   data: '{"conversationId":"cid1","msgId":"m1","msgtype":"text","text":{"content":"hi"},"senderStaffId":"u1"}',
 * };
 * ```
 */
export interface DingTalkStreamFrame {
  readonly headers: { readonly messageId: string; readonly topic?: string };
  readonly data: string;
}

/**
 * The part of dingtalk-stream's `DWClient` the adapter uses; a `new DWClient({ clientId,
 * clientSecret })` is one. The adapter registers its listeners and connects it.
 *
 * @example
 * ```ts
 * import type { DingTalkStreamClient } from '@parley/dingtalk';
 *
 * function describe(client: DingTalkStreamClient): string {
 *   return client.getConfig().clientId;
 * }
 * ```
 */
export interface DingTalkStreamClient {
  /** Subscribes to a CALLBACK topic (before `connect`: the subscriptions go to the gateway). */
  registerCallbackListener(topic: string, callback: (frame: DingTalkStreamFrame) => void): unknown;
  /** Removes a listener (the client is an EventEmitter). */
  off(topic: string, callback: (frame: DingTalkStreamFrame) => void): unknown;
  /** Acknowledges a pushed message so DingTalk does not push it again. */
  socketCallBackResponse(messageId: string, result: unknown): void;
  /** Opens the stream: the gateway's connections/open, then the WebSocket. */
  connect(): Promise<void>;
  /** Closes the stream. */
  disconnect(): void;
  /** The app's credentials, also used for the OpenAPI's access token. */
  getConfig(): { readonly clientId: string; readonly clientSecret: string };
}
