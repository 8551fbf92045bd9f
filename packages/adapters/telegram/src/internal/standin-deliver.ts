import type { TelegramDelivery } from '../standin-types.js';
import type { TelegramStandInChat, TelegramStandInUpdate } from '../standin-update-types.js';
import { isRecord } from './standin-answer.js';
import type { StandInChats } from './standin-chats.js';
import type { MethodContext } from './standin-methods.js';
import type { StandInPolling } from './standin-polling.js';
import { postToWebhook } from './standin-webhook.js';

/** What delivering a user's update reads and changes. */
export interface DeliverState {
  readonly isClosed: () => boolean;
  readonly context: MethodContext;
  readonly chats: StandInChats;
  readonly queries: Set<string>;
  readonly polling: StandInPolling;
  /** Settles each delivery still waiting for a poll to confirm it (as closed). */
  readonly confirmations: Set<() => void>;
}

/**
 * Delivers an update by webhook when the bot set one, else queues it for `getUpdates` and settles
 * once a poll's offset confirms it (or the stand-in closes).
 */
export function deliverUpdate<TUpdate extends TelegramStandInUpdate>(
  at: DeliverState,
  update: TUpdate,
): Promise<TelegramDelivery<TUpdate>> {
  if (at.isClosed()) return Promise.resolve(closedDelivery(update));
  remember(at, update);
  if (at.context.webhook !== undefined) return postToWebhook(at.context.webhook, update);
  return new Promise((resolve) => {
    const confirm = (delivery: TelegramDelivery<TUpdate>): void => {
      at.confirmations.delete(settleClosed);
      resolve(delivery);
    };
    const settleClosed = (): void => confirm(closedDelivery(update));
    at.confirmations.add(settleClosed);
    at.polling.enqueue(update, () => confirm({ ok: true, update }));
  });
}

/** Remembers the chats and callback queries an update carries. */
function remember(at: DeliverState, update: TelegramStandInUpdate): void {
  for (const key of ['message', 'edited_message'] as const) {
    const message = update[key];
    if (isRecord(message) && isRecord(message['chat']) && typeof message['chat']['id'] === 'number')
      at.chats.remember(message['chat'] as unknown as TelegramStandInChat); // a chat with a numeric id
  }
  const query = update['callback_query'];
  if (isRecord(query) && typeof query['id'] === 'string') at.queries.add(query['id']);
}

function closedDelivery<TUpdate extends TelegramStandInUpdate>(update: TUpdate): TelegramDelivery<TUpdate> {
  return { ok: false, code: 'closed', message: 'The Telegram stand-in is closed', update };
}
