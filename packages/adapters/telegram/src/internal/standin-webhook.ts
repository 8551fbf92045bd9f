// Webhook delivery as Telegram does it (https://core.telegram.org/bots/api#setwebhook): one POST of
// the update as JSON to the URL the bot set, with the secret in `X-Telegram-Bot-Api-Secret-Token`.
// A 2xx answer delivers it; the stand-in does not retry (a test delivers the update again).
import { sendRequest } from '@parley/testing/loopback';
import type { TelegramDelivery } from '../standin-types.js';
import type { TelegramStandInUpdate } from '../standin-update-types.js';
import type { StandInWebhook } from './standin-methods.js';

export async function postToWebhook<TUpdate extends TelegramStandInUpdate>(
  webhook: StandInWebhook,
  update: TUpdate,
): Promise<TelegramDelivery<TUpdate>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (webhook.secretToken !== undefined) headers['x-telegram-bot-api-secret-token'] = webhook.secretToken;
  try {
    const { status } = await sendRequest(webhook.url, { headers, body: JSON.stringify(update) });
    if (status >= 200 && status < 300) return { ok: true, update };
    return {
      ok: false,
      code: 'webhook_refused',
      status,
      message: `The webhook ${webhook.url} answered ${status}`,
      update,
    };
  } catch (error) {
    return {
      ok: false,
      code: 'webhook_unreachable',
      message: `The webhook ${webhook.url} could not be reached: ${String(error)}`,
      update,
    };
  }
}
