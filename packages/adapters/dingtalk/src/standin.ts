import { type Clock, systemClock } from '@parley/core';
import axios from 'axios';
import { GATEWAY_URL, TOPIC_CARD, TOPIC_ROBOT } from 'dingtalk-stream';
import { GATEWAY_PATH, startStandInApi } from './internal/standin-api.js';
import { cardCallbackOf, robotMessageOf } from './internal/standin-payloads.js';
import { clickCallbackOf, type PushState, pushFrame } from './internal/standin-push.js';
import type {
  DingTalkPush,
  DingTalkSentMessage,
  DingTalkStandInCardOptions,
  DingTalkStandInClickOptions,
  DingTalkStandInFault,
  DingTalkStandInMessageOptions,
  DingTalkStandInOptions,
  DingTalkStandInRequest,
} from './standin-types.js';

/**
 * A stand-in of DingTalk on 127.0.0.1, made by {@link createDingTalkStandIn}: the stream gateway a
 * `DWClient` opens its connection with, the WebSocket it then listens on (robot messages and card
 * callbacks pushed as DingTalk pushes them, acknowledgements recorded), and the OpenAPI the
 * adapter sends with (point its `apiBase` at `url`).
 *
 * @example
 * ```ts
 * import { createDingTalkStandIn, type DingTalkStandIn } from '@parley/dingtalk/testing';
 *
 * const dingtalk: DingTalkStandIn = await createDingTalkStandIn();
 * console.log(dingtalk.url.startsWith('http://127.0.0.1:'), dingtalk.connections); // true 0
 * await dingtalk.close();
 * ```
 */
export interface DingTalkStandIn {
  /** `http://127.0.0.1:<port>`: the adapter's `apiBase`. */
  readonly url: string;
  /** The `DWClient`'s `clientId` (and the robot code). */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The group conversation of injected messages when they name none. */
  readonly conversationId: string;
  /** The access token the token endpoint hands out. */
  readonly accessToken: string;
  /** Every OpenAPI send made with that token, in order. */
  readonly sent: readonly DingTalkSentMessage[];
  /** The gateway's `connections/open` requests. */
  readonly gateway: readonly DingTalkStandInRequest[];
  /** The token requests. */
  readonly tokenRequests: readonly DingTalkStandInRequest[];
  /** How many stream clients are connected now. */
  readonly connections: number;
  /** Resolves once a stream client is connected. */
  connected(): Promise<void>;
  /** Resolves when the next stream connection closes. */
  disconnected(): Promise<void>;
  /** Someone writes `text` to the robot (a TOPIC_ROBOT frame); the group and the robot @-mentioned by default. */
  message(text: string, options?: DingTalkStandInMessageOptions): DingTalkPush;
  /**
   * Someone clicks the button labelled `button` (exact label, or a pattern) on the last card sent
   * (or on `options.outTrackId`): a TOPIC_CARD callback whose params are `{ value }`.
   *
   * @throws DingTalkAdapterError `invalid_argument` when no such card or button was sent.
   */
  click(button: string | RegExp, options?: DingTalkStandInClickOptions): DingTalkPush;
  /** Pushes a CALLBACK frame with `data` (JSON-encoded unless `raw`) on `topic`. */
  push(
    topic: string,
    data: unknown,
    options?: { readonly messageId?: string; readonly raw?: boolean },
  ): DingTalkPush;
  /** The robot message `message` would push, to change before `push` sends it. */
  robotMessage(text: string, options?: DingTalkStandInMessageOptions): Record<string, unknown>;
  /** A card callback whose button sent `params`. */
  cardCallback(
    params: Readonly<Record<string, unknown>>,
    options?: DingTalkStandInCardOptions,
  ): Record<string, unknown>;
  /** Resolves with the `count`-th send (1 by default), at once when it was made. */
  waitForSent(count?: number): Promise<DingTalkSentMessage>;
  /** The next OpenAPI sends get these answers, in order, instead of a success. */
  failNext(...faults: DingTalkStandInFault[]): void;
  /** The token endpoint answers this from now on (`undefined`: tokens again). */
  failToken(fault: DingTalkStandInFault | undefined): void;
  /** Stops listening, drops every connection and removes the gateway interceptor. */
  close(): Promise<void>;
}

/**
 * Starts a stand-in of DingTalk on 127.0.0.1 (see {@link DingTalkStandIn}) for testing a stream-mode
 * bot offline with the real `dingtalk-stream` `DWClient`. Node only; needs `@parley/testing` (an
 * optional peer) and the `ws` package (which `dingtalk-stream` already installs).
 *
 * @example
 * ```ts
 * import { createDingTalkStandIn } from '@parley/dingtalk/testing';
 * import { DWClient, TOPIC_ROBOT } from 'dingtalk-stream';
 *
 * const dingtalk = await createDingTalkStandIn();
 * const client = new DWClient({ clientId: dingtalk.clientId, clientSecret: dingtalk.clientSecret });
 * const heard: string[] = [];
 * client.registerCallbackListener(TOPIC_ROBOT, (frame) => {
 *   heard.push((JSON.parse(frame.data) as { text: { content: string } }).text.content);
 *   client.socketCallBackResponse(frame.headers.messageId, {});
 * });
 * await client.connect();
 * await dingtalk.connected();
 * console.log((await dingtalk.message('hello').acked).code, heard); // 200 [ 'hello' ]
 * client.disconnect();
 * await dingtalk.close();
 * ```
 */
export async function createDingTalkStandIn(options: DingTalkStandInOptions = {}): Promise<DingTalkStandIn> {
  const clock: Clock = options.clock ?? systemClock;
  const clientId = options.clientId ?? 'dingstandin';
  const clientSecret = options.clientSecret ?? 'standin-secret';
  let counter = 0;
  const app = {
    robotCode: clientId,
    conversationId: options.conversationId ?? 'cidStandInGroup==',
    userId: options.userId ?? 'staff_standin',
    corpId: 'dingstandincorp',
    botUserId: '$:LWCP_v1:$standinBot',
    next: () => ++counter,
    now: () => clock.now(),
  };
  const api = await startStandInApi({ clientId, clientSecret });
  const interceptor =
    options.interceptGateway === false
      ? undefined
      : axios.interceptors.request.use((config) => {
          if (config.url === GATEWAY_URL) config.url = `${api.server.url}${GATEWAY_PATH}`;
          return config;
        });

  const pushing: PushState = { socket: api.socket, clientId, clock };
  const push = (topic: string, data: unknown, more?: { messageId?: string; raw?: boolean }): DingTalkPush =>
    pushFrame(pushing, topic, data, more);

  return {
    url: api.server.url,
    clientId,
    clientSecret,
    conversationId: app.conversationId,
    accessToken: api.accessToken,
    sent: api.sent,
    get gateway() {
      return api.requestsTo(GATEWAY_PATH);
    },
    get tokenRequests() {
      return api.requestsTo('/v1.0/oauth2/accessToken');
    },
    get connections() {
      return api.socket.connections;
    },
    connected: () => api.socket.connected(),
    disconnected: () => api.socket.disconnected(),
    message: (text, more) => push(TOPIC_ROBOT, robotMessageOf(app, text, more)),
    click: (button, more = {}) => push(TOPIC_CARD, clickCallbackOf(app, api.sent, button, more)),
    push: (topic, data, more) => push(topic, data, more),
    robotMessage: (text, more) => robotMessageOf(app, text, more),
    cardCallback: (params, more = {}) =>
      cardCallbackOf(app, params, {
        ...more,
        outTrackId: more.outTrackId ?? api.sent.filter((m) => m.kind === 'card').at(-1)?.outTrackId ?? '',
      }),
    waitForSent: (count = 1) => api.waitForSent(count),
    failNext: (...faults) => api.failNext(faults),
    failToken: (fault) => api.failToken(fault),
    async close() {
      if (interceptor !== undefined) axios.interceptors.request.eject(interceptor);
      await api.server.close();
    },
  };
}
