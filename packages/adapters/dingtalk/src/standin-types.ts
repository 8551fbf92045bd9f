import type { Clock } from '@parley/core';

/**
 * Options of {@link createDingTalkStandIn}: the app's credentials, the robot and the defaults of
 * the injectors, and the clock that stamps pushed messages. Every field has a default.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { DingTalkStandInOptions } from '@parley/dingtalk/testing';
 *
 * const options: DingTalkStandInOptions = { clock: createManualClock({ now: 1_767_225_600_000 }), userId: 'manager4521' };
 * ```
 */
export interface DingTalkStandInOptions {
  /** Stamps `createAt` of pushed messages; the system clock by default. */
  readonly clock?: Clock;
  /** The app key the gateway and the token endpoint accept (also the robot code); `dingstandin` by default. */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** The group conversation of injected messages; `cidStandInGroup==` by default. */
  readonly conversationId?: string;
  /** The staff id of the person who writes and clicks; `staff_standin` by default. */
  readonly userId?: string;
  /**
   * `DWClient` asks the fixed `GATEWAY_URL` for its stream endpoint, with the `axios` it imports:
   * while the stand-in is open, an axios request interceptor sends that one request to the
   * stand-in instead (`true` by default). Pass `false` to route it yourself.
   */
  readonly interceptGateway?: boolean;
}

/**
 * How a robot message is written: sender, conversation, type and extra fields.
 *
 * @example
 * ```ts
 * import type { DingTalkStandInMessageOptions } from '@parley/dingtalk/testing';
 *
 * const direct: DingTalkStandInMessageOptions = { sender: 'manager4521', conversationType: '1' };
 * ```
 */
export interface DingTalkStandInMessageOptions {
  /** The sender's staff id; the stand-in's `userId` by default. */
  readonly sender?: string;
  /** `'2'` (group, the robot @-mentioned) by default; `'1'` direct. */
  readonly conversationType?: '1' | '2';
  readonly conversationId?: string;
  readonly msgId?: string;
  /** `text` by default. */
  readonly msgtype?: string;
  /** Fields put over the message as written (a `richText` `content`, a missing field, …). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * How a card callback is written: who clicked which card (`outTrackId`).
 *
 * @example
 * ```ts
 * import type { DingTalkStandInCardOptions } from '@parley/dingtalk/testing';
 *
 * const click: DingTalkStandInCardOptions = { user: 'staff0666', outTrackId: 'parley_1' };
 * ```
 */
export interface DingTalkStandInCardOptions {
  /** Who clicks; the stand-in's `userId` by default. */
  readonly user?: string;
  /** The card's `outTrackId`; the last card sent by default. */
  readonly outTrackId?: string;
}

/**
 * Options of {@link DingTalkStandIn.click}: a card option plus `value`, sent instead of the
 * button's own (a forged click).
 *
 * @example
 * ```ts
 * import type { DingTalkStandInClickOptions } from '@parley/dingtalk/testing';
 *
 * const forged: DingTalkStandInClickOptions = { user: 'staff0666', value: '{"confirmation":"cfm_1.confirm.x"}' };
 * ```
 */
export interface DingTalkStandInClickOptions extends DingTalkStandInCardOptions {
  readonly value?: string;
}

/**
 * The acknowledgement a stream client sends for a pushed frame (`socketCallBackResponse`).
 *
 * @example
 * ```ts
 * import type { DingTalkAck } from '@parley/dingtalk/testing';
 *
 * const ok = (ack: DingTalkAck): boolean => ack.code === 200;
 * ```
 */
export interface DingTalkAck {
  readonly code: number;
  readonly headers: { readonly messageId: string };
  readonly data: string;
}

/**
 * One frame pushed on the stream: its `messageId`, the client's acknowledgement when it comes (a
 * bot that leaves a frame unacknowledged never resolves it), and DingTalk's push of the same frame
 * again.
 *
 * @example
 * ```ts
 * import type { DingTalkPush } from '@parley/dingtalk/testing';
 *
 * const twice = async (push: DingTalkPush): Promise<void> => void (await push.redeliver().acked);
 * ```
 */
export interface DingTalkPush {
  readonly messageId: string;
  readonly acked: Promise<DingTalkAck>;
  redeliver(): DingTalkPush;
}

/**
 * One OpenAPI send the bot made with a valid access token, as the stand-in stored it.
 *
 * @example
 * ```ts
 * import type { DingTalkSentMessage } from '@parley/dingtalk/testing';
 *
 * const labels = (message: DingTalkSentMessage): string[] => message.buttons.map((b) => b.label);
 * ```
 */
export interface DingTalkSentMessage {
  /** `group` (groupMessages/send), `direct` (oToMessages/batchSend) or `card` (createAndDeliver). */
  readonly kind: 'group' | 'direct' | 'card';
  readonly path: string;
  /** The access token it was sent with. */
  readonly token: string | undefined;
  /** The group conversation, or the card's space id (`dtv1.card//IM_GROUP.<id>`'s id). */
  readonly conversationId: string | undefined;
  /** Who a direct message went to. */
  readonly userIds: readonly string[];
  /** `msgParam.content` of a text, `msgParam.text` of markdown, `cardParamMap.text` of a card. */
  readonly text: string;
  /** A card's buttons: label and the value text a click sends back. */
  readonly buttons: readonly { readonly label: string; readonly value: string }[];
  /** A card's `outTrackId`. */
  readonly outTrackId: string | undefined;
  /** The request body as the bot posted it. */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * One request the stand-in's HTTP side received (gateway, token and sends, refused ones included).
 *
 * @example
 * ```ts
 * import type { DingTalkStandInRequest } from '@parley/dingtalk/testing';
 *
 * const isGateway = (request: DingTalkStandInRequest): boolean => request.path === '/v1.0/gateway/connections/open';
 * ```
 */
export interface DingTalkStandInRequest {
  readonly path: string;
  readonly token: string | undefined;
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * An answer the next OpenAPI sends (or the token endpoint) get instead of a success: status,
 * body, and `raw` to send the body as text rather than JSON.
 *
 * @example
 * ```ts
 * import type { DingTalkStandInFault } from '@parley/dingtalk/testing';
 *
 * const limited: DingTalkStandInFault = { status: 403, body: { code: 'Forbidden.AccessDenied.QpsLimitForApi', message: 'qps limit' } };
 * ```
 */
export interface DingTalkStandInFault {
  readonly status: number;
  readonly body: unknown;
  readonly raw?: boolean;
}
