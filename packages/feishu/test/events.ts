// Feishu's documented payloads (event subscription v2.0 bodies and card callbacks), and the
// signing and encryption Feishu applies before POSTing them to the bot's webhook.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';

export const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
export const APP_ID = 'cli_a1b2c3';
export const BOT = 'ou_bot_7f3a';
export const ALICE = 'ou_alice_2b91';
export const MALLORY = 'ou_mallory_6c04';
export const CHAT = 'oc_ops_5d1e';
export const ENCRYPT_KEY = 'eQ2fT9kLm4pX7sWv';
export const VERIFICATION_TOKEN = 'v-Pn3Qx8RzYt';

let counter = 0;

interface MessageOptions {
  readonly eventId?: string;
  readonly messageId?: string;
  readonly sender?: string;
  readonly senderType?: string;
  readonly chatType?: 'p2p' | 'group';
  readonly chatId?: string;
  readonly at: number;
  readonly type?: string;
  readonly content?: unknown;
  readonly mentions?: readonly { key: string; openId: string; name: string }[];
  readonly rootId?: string;
  readonly threadId?: string;
}

/** An im.message.receive_v1 body as Feishu POSTs it (schema 2.0). */
export function messageEvent(text: string, options: MessageOptions): Record<string, unknown> {
  counter++;
  const sender = options.sender ?? ALICE;
  return {
    schema: '2.0',
    header: {
      event_id: options.eventId ?? `f7984f25108f8137722bb63cee927e${counter}`,
      token: VERIFICATION_TOKEN,
      create_time: String(options.at),
      event_type: 'im.message.receive_v1',
      tenant_key: '2ca1d211f64f6438',
      app_id: APP_ID,
    },
    event: {
      sender: {
        sender_id: { union_id: `on_${sender}`, user_id: `u_${sender}`, open_id: sender },
        sender_type: options.senderType ?? 'user',
        tenant_key: '2ca1d211f64f6438',
      },
      message: {
        message_id: options.messageId ?? `om_dc13264520392913993dd051dba2${counter}`,
        ...(options.rootId === undefined ? {} : { root_id: options.rootId, parent_id: options.rootId }),
        ...(options.threadId === undefined ? {} : { thread_id: options.threadId }),
        create_time: String(options.at),
        update_time: String(options.at),
        chat_id: options.chatId ?? CHAT,
        chat_type: options.chatType ?? 'group',
        message_type: options.type ?? 'text',
        content: JSON.stringify(options.content ?? { text }),
        ...(options.mentions === undefined
          ? {}
          : {
              mentions: options.mentions.map((m) => ({
                key: m.key,
                id: { union_id: `on_${m.openId}`, user_id: `u_${m.openId}`, open_id: m.openId },
                name: m.name,
                tenant_key: '2ca1d211f64f6438',
              })),
            }),
        user_agent: 'Mozilla/5.0 Lark/7.30.0',
      },
    },
  };
}

/** A group reply that @-mentions the bot: text `@_user_1 <text>` and its mentions entry. */
export function mentionReply(text: string, options: MessageOptions): Record<string, unknown> {
  return messageEvent(`@_user_1 ${text}`, {
    ...options,
    mentions: [{ key: '@_user_1', openId: BOT, name: 'Ops bot' }],
  });
}

/** An im.message.recalled_v1 body. */
export function recallEvent(messageId: string, at: number): Record<string, unknown> {
  counter++;
  return {
    schema: '2.0',
    header: {
      event_id: `recall-${counter}`,
      token: VERIFICATION_TOKEN,
      create_time: String(at),
      event_type: 'im.message.recalled_v1',
      tenant_key: '2ca1d211f64f6438',
      app_id: APP_ID,
    },
    event: { message_id: messageId, chat_id: CHAT, recall_time: String(at), recall_type: 'message_owner' },
  };
}

/** A card.action.trigger callback body (schema 2.0) for a button click. */
export function cardEvent(
  value: unknown,
  options: { operator?: string; messageId: string; eventId?: string; at: number },
): Record<string, unknown> {
  counter++;
  const operator = options.operator ?? ALICE;
  return {
    schema: '2.0',
    header: {
      event_id: options.eventId ?? `card-${counter}`,
      token: VERIFICATION_TOKEN,
      create_time: String(options.at * 1000),
      event_type: 'card.action.trigger',
      tenant_key: '2ca1d211f64f6438',
      app_id: APP_ID,
    },
    event: {
      operator: {
        tenant_key: '2ca1d211f64f6438',
        user_id: `u_${operator}`,
        open_id: operator,
        union_id: `on_${operator}`,
      },
      token: `c-${counter}e1a2b3`,
      action: { value, tag: 'button' },
      host: 'im_message',
      context: { open_message_id: options.messageId, open_chat_id: CHAT },
    },
  };
}

/** An older card callback body, as CardActionHandler receives it. */
export function legacyCardCallback(
  value: unknown,
  options: { operator?: string; messageId: string },
): Record<string, unknown> {
  counter++;
  const operator = options.operator ?? ALICE;
  return {
    open_id: operator,
    user_id: `u_${operator}`,
    open_message_id: options.messageId,
    open_chat_id: CHAT,
    tenant_key: '2ca1d211f64f6438',
    token: `c-legacy-${counter}`,
    action: { value, tag: 'button' },
  };
}

/** The encrypted, signed request Feishu sends for an event when an Encrypt Key is set. */
export function encrypted(body: unknown): { body: string; headers: Record<string, string> } {
  const key = createHash('sha256').update(ENCRYPT_KEY).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
  return signed(JSON.stringify({ encrypt: sealed.toString('base64') }), 'sha256', ENCRYPT_KEY);
}

/** An older card callback request, signed with the verification token. */
export function signedCard(body: unknown): { body: string; headers: Record<string, string> } {
  return signed(JSON.stringify(body), 'sha1', VERIFICATION_TOKEN);
}

/** The request headers Feishu signs a body with: hash(timestamp + nonce + key + body). */
function signed(
  text: string,
  algorithm: 'sha1' | 'sha256',
  key: string,
): { body: string; headers: Record<string, string> } {
  const timestamp = String(Math.floor(T0 / 1000));
  const nonce = randomBytes(8).toString('hex');
  const signature = createHash(algorithm)
    .update(timestamp + nonce + key + text)
    .digest('hex');
  return {
    body: text,
    headers: {
      'content-type': 'application/json',
      'x-lark-request-timestamp': timestamp,
      'x-lark-request-nonce': nonce,
      'x-lark-signature': signature,
    },
  };
}
