import { createRecentMap } from '@parley/core';
import {
  type DeliverInbound,
  type InboundInput,
  type PublishResult,
  type SendReceipt,
  toRememberedId,
} from '@parley/bus';
import { FeishuAdapterError } from './errors.js';
import {
  cardToInbound,
  createTimeOrder,
  type FeishuCardAction,
  type MessagePlace,
  messageToInbound,
  recallToInbound,
} from './inbound.js';
import { toFeishuError } from './internal/failure.js';
import { type FeishuMessageBody, toFeishuMessage } from './outbound.js';
import type {
  FeishuAdapter,
  FeishuAdapterOptions,
  FeishuApiAnswer,
  FeishuCardResponse,
  FeishuEventHandles,
} from './types.js';

const DEFAULT_MAX_REMEMBERED = 1000;

const defaultToast = (result: PublishResult | undefined): FeishuCardResponse =>
  result === undefined || result.status === 'rejected'
    ? { toast: { type: 'error', content: '暂时无法处理，请稍后再试 Please try again later' } }
    : { toast: { type: 'info', content: '已收到 Received' } };

/**
 * Creates a Feishu / Lark {@link FeishuAdapter} over the official SDK: events from its
 * `EventDispatcher` (webhook or `WSClient`) and card clicks become bus inputs, and outbound
 * messages go out through `client.im.message.create` / `reply` as text or interactive cards.
 *
 * Use one per bot. A send that Feishu refuses or rate-limits rejects with a {@link FeishuAdapterError},
 * which the bus reports as a `send_failed` result and a `dropped` event.
 *
 * @throws FeishuAdapterError `invalid_argument` for an empty `botOpenId` or a bad `maxRememberedMessages`.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createFeishuAdapter, type FeishuClient } from '@parley/feishu';
 *
 * const sent: string[] = [];
 * const client: FeishuClient = {
 *   im: { message: {
 *     async create({ data }) {
 *       sent.push(data.content);
 *       return { code: 0, data: { message_id: 'om_9', create_time: '1767225600000' } };
 *     },
 *     reply: async () => ({ code: 0, data: {} }),
 *   } },
 * };
 * const adapter = createFeishuAdapter({ client, botOpenId: 'ou_bot' });
 * const bus = createMessageBus();
 * await bus.attach(adapter);
 * await adapter.handles['im.message.receive_v1']({
 *   event_id: 'ev_1',
 *   sender: { sender_id: { open_id: 'ou_alice' }, sender_type: 'user' },
 *   message: { message_id: 'om_1', chat_id: 'oc_ops', chat_type: 'group', message_type: 'text',
 *     create_time: '1767225605000', content: '{"text":"@_user_1 hello"}',
 *     mentions: [{ key: '@_user_1', id: { open_id: 'ou_bot' }, name: 'Bot' }] },
 * });
 * console.log((await bus.receiveInbound()).text); // hello
 * const result = await bus.publishOutbound({ channel: 'feishu', chatId: 'oc_ops', text: 'hi' });
 * console.log(result.status, sent); // sent [ '{"text":"hi"}' ]
 * ```
 */
export function createFeishuAdapter(options: FeishuAdapterOptions): FeishuAdapter {
  const { client, botOpenId, dispatcher, onError } = options;
  const max = options.maxRememberedMessages ?? DEFAULT_MAX_REMEMBERED;
  if (typeof botOpenId !== 'string' || botOpenId === '') {
    throw new FeishuAdapterError('invalid_argument', 'botOpenId must be the bot’s open id');
  }
  if (!Number.isInteger(max) || max < 1) {
    throw new FeishuAdapterError(
      'invalid_argument',
      `maxRememberedMessages must be a positive integer, got ${max}`,
      {
        details: { maxRememberedMessages: max },
      },
    );
  }
  const channel = options.channel ?? 'feishu';
  const toast = options.toast ?? defaultToast;
  // Keyed by message id and by event id, each as `toRememberedId` keeps it (at most 65 characters).
  const places = createRecentMap<string, MessagePlace>({ maxEntries: max });
  const messageOfEvent = createRecentMap<string, string>({ maxEntries: max });
  let deliver: DeliverInbound | undefined;

  async function publish(
    input: Omit<InboundInput, 'channel'> | undefined,
  ): Promise<PublishResult | undefined> {
    if (input === undefined) return undefined; // nothing a chat bot can address
    if (deliver === undefined) {
      onError?.(new FeishuAdapterError('not_delivered', 'A Feishu event arrived while no bus was attached'));
      return undefined;
    }
    const result = await deliver(input);
    if (result.status === 'rejected' && (result.code === 'queue_full' || result.code === 'closed')) {
      onError?.(
        new FeishuAdapterError('not_delivered', `The bus refused a Feishu event: ${result.code}`, {
          details: { code: result.code, eventId: input.eventId },
        }),
      );
    }
    return result;
  }

  async function onClick(click: FeishuCardAction): Promise<FeishuCardResponse> {
    const messageId = click.context?.open_message_id ?? click.open_message_id;
    const place = messageId === undefined ? undefined : places.get(toRememberedId(messageId));
    return toast(await publish(cardToInbound(click, place)));
  }

  const handles: FeishuEventHandles = {
    async 'im.message.receive_v1'(event) {
      const input = messageToInbound(event, botOpenId, channel);
      const message = event.message;
      if (input !== undefined && message !== undefined) {
        places.set(toRememberedId(message.message_id), {
          chatId: input.chatId,
          threadId: input.threadId,
          senderId: input.senderId,
        });
        if (input.eventId !== undefined)
          messageOfEvent.set(toRememberedId(input.eventId), message.message_id);
      }
      await publish(input);
    },
    async 'im.message.recalled_v1'(event) {
      const place = event.message_id === undefined ? undefined : places.get(toRememberedId(event.message_id));
      await publish(recallToInbound(event, place));
    },
    'card.action.trigger': onClick,
  };

  async function call(
    body: FeishuMessageBody,
    chatId: string,
    threadId: string | undefined,
    replyTo: string | undefined,
  ): Promise<FeishuApiAnswer> {
    const target =
      threadId ?? (replyTo === undefined ? undefined : messageOfEvent.get(toRememberedId(replyTo)));
    if (target === undefined) {
      return client.im.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: chatId, ...body },
      });
    }
    return client.im.message.reply({
      path: { message_id: target },
      data: threadId === undefined ? body : { ...body, reply_in_thread: true },
    });
  }

  return {
    channel,
    handles,
    handleCardAction: onClick,
    async send(message): Promise<SendReceipt> {
      const body = toFeishuMessage(message);
      const operation =
        message.threadId === undefined && message.replyTo === undefined
          ? 'im.message.create'
          : 'im.message.reply';
      let answer: FeishuApiAnswer;
      try {
        answer = await call(body, message.chatId, message.threadId, message.replyTo);
      } catch (error) {
        throw toFeishuError(error, operation);
      }
      if (answer?.code !== 0) throw toFeishuError(answer, operation);
      const data = (answer.data ?? {}) as { message_id?: unknown; create_time?: unknown };
      if (typeof data.message_id === 'string') {
        places.set(toRememberedId(data.message_id), { chatId: message.chatId, threadId: message.threadId });
      }
      const sentAt = Number(data.create_time);
      const order = createTimeOrder(channel, message.chatId, data.create_time); // a reply stays in its chat
      return {
        ...(Number.isFinite(sentAt) && sentAt > 0 ? { sentAt } : {}),
        order,
        ...(typeof data.message_id === 'string' ? { messageId: data.message_id } : {}),
      };
    },
    connect(d) {
      deliver = d;
      dispatcher?.register(handles);
      return () => {
        deliver = undefined;
        dispatcher?.unregister?.(...Object.keys(handles));
      };
    },
  };
}
