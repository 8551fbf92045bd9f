import type {
  FeishuStandInCardOptions,
  FeishuStandInMessageOptions,
  FeishuStandInRecallOptions,
} from '../standin-types.js';

/** Who the stand-in is: the app, its tenant and verification token, and the defaults of its injectors. */
export interface StandInApp {
  readonly appId: string;
  readonly verificationToken: string;
  readonly tenantKey: string;
  readonly botOpenId: string;
  readonly chatId: string;
  readonly userOpenId: string;
  /** A fresh number for each id the stand-in makes up. */
  next(): number;
  now(): number;
}

/** Feishu's event ids are 32 hex digits; the stand-in's count up. */
const eventIdOf = (n: number): string => n.toString(16).padStart(32, '0');

const userIds = (openId: string) => ({ union_id: `on_${openId}`, user_id: `u_${openId}`, open_id: openId });

/** An event subscription body (schema 2.0): the header Feishu writes and the event. */
function schema2(
  app: StandInApp,
  head: { eventType: string; eventId: string; createTime: string },
  event: Record<string, unknown>,
): Record<string, unknown> {
  return {
    schema: '2.0',
    header: {
      event_id: head.eventId,
      token: app.verificationToken,
      create_time: head.createTime,
      event_type: head.eventType,
      tenant_key: app.tenantKey,
      app_id: app.appId,
    },
    event,
  };
}

/** An im.message.receive_v1 body as Feishu POSTs it (event subscription schema 2.0). */
export function messageEventOf(
  app: StandInApp,
  text: string,
  options: FeishuStandInMessageOptions = {},
): Record<string, unknown> {
  const n = app.next();
  const at = String(app.now());
  const sender = options.sender ?? app.userOpenId;
  const mentions = [
    ...(options.mentionBot === true ? [{ key: '@_user_1', openId: app.botOpenId, name: 'Bot' }] : []),
    ...(options.mentions ?? []),
  ];
  const written = options.mentionBot === true ? `@_user_1 ${text}` : text;
  const eventId = options.eventId ?? eventIdOf(n);
  return schema2(
    app,
    { eventType: 'im.message.receive_v1', eventId, createTime: at },
    {
      sender: {
        sender_id: userIds(sender),
        sender_type: options.senderType ?? 'user',
        tenant_key: app.tenantKey,
      },
      message: {
        message_id: options.messageId ?? `om_in_${n}`,
        ...(options.rootId === undefined ? {} : { root_id: options.rootId, parent_id: options.rootId }),
        ...(options.threadId === undefined ? {} : { thread_id: options.threadId }),
        create_time: at,
        update_time: at,
        chat_id: options.chatId ?? app.chatId,
        chat_type: options.chatType ?? 'group',
        message_type: options.messageType ?? 'text',
        content: JSON.stringify(options.content ?? { text: written }),
        ...(mentions.length === 0
          ? {}
          : {
              mentions: mentions.map((m) => ({
                key: m.key,
                id: userIds(m.openId),
                name: m.name,
                tenant_key: app.tenantKey,
              })),
            }),
      },
    },
  );
}

/** An im.message.recalled_v1 body. */
export function recallEventOf(
  app: StandInApp,
  messageId: string,
  options: FeishuStandInRecallOptions = {},
): Record<string, unknown> {
  const n = app.next();
  const at = String(app.now());
  const eventId = options.eventId ?? eventIdOf(n);
  return schema2(
    app,
    { eventType: 'im.message.recalled_v1', eventId, createTime: at },
    {
      message_id: messageId,
      chat_id: options.chatId ?? app.chatId,
      recall_time: at,
      recall_type: 'message_owner',
    },
  );
}

/** A card.action.trigger callback body (schema 2.0) for a click on a button carrying `value`. */
export function cardEventOf(
  app: StandInApp,
  value: unknown,
  options: FeishuStandInCardOptions,
): Record<string, unknown> {
  const n = app.next();
  const operator = options.user ?? app.userOpenId;
  const eventId = options.eventId ?? eventIdOf(n);
  // A click's header stamps microseconds.
  return schema2(
    app,
    { eventType: 'card.action.trigger', eventId, createTime: String(app.now() * 1000) },
    {
      operator: { tenant_key: app.tenantKey, ...userIds(operator) },
      token: `c-${eventIdOf(n)}`,
      action: { value, tag: 'button' },
      host: 'im_message',
      context: { open_message_id: options.messageId, open_chat_id: options.chatId ?? app.chatId },
    },
  );
}

/** The older card callback body (no schema), as a `CardActionHandler` receives it. */
export function cardCallbackOf(
  app: StandInApp,
  value: unknown,
  options: FeishuStandInCardOptions,
): Record<string, unknown> {
  const n = app.next();
  const operator = options.user ?? app.userOpenId;
  return {
    open_id: operator,
    user_id: `u_${operator}`,
    open_message_id: options.messageId,
    open_chat_id: options.chatId ?? app.chatId,
    tenant_key: app.tenantKey,
    token: `c-${eventIdOf(n)}`,
    action: { value, tag: 'button' },
  };
}
