import { createRecentMap } from '@parley/core';
import { type DeliverInbound, type InboundInput, type PublishResult, toRememberedId } from '@parley/bus';
import { FeishuAdapterError } from './errors.js';
import {
  cardToInbound,
  type FeishuCardAction,
  type MessagePlace,
  messageToInbound,
  recallToInbound,
} from './inbound.js';
import { type SendPlaces, sendMessage } from './internal/send.js';
import type { FeishuAdapter, FeishuAdapterOptions, FeishuCardResponse, FeishuEventHandles } from './types.js';

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
  const max = checkOptions(botOpenId, options.maxRememberedMessages ?? DEFAULT_MAX_REMEMBERED);
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

  const sendPlaces: SendPlaces = { client, channel, places, messageOfEvent };

  return {
    channel,
    handles,
    handleCardAction: onClick,
    send: (message) => sendMessage(sendPlaces, message),
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

/** Checks the options a Feishu adapter cannot work without; returns `maxRememberedMessages`. */
function checkOptions(botOpenId: string, max: number): number {
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
  return max;
}
