import { sendRequest } from '@parley/testing/loopback';
import { FeishuAdapterError } from '../errors.js';
import type {
  FeishuDelivery,
  FeishuSentMessage,
  FeishuStandInClickOptions,
  FeishuSubscribeResult,
  FeishuSubscription,
} from '../standin-types.js';
import { cardCallbackOf, cardEventOf, type StandInApp } from './standin-payloads.js';
import { type SealedRequest, type Stamp, sealEvent, signCardCallback } from './standin-seal.js';

/** What delivering to the bot reads: the app, a fresh stamp per request, and where the bot listens. */
export interface DeliverState {
  readonly app: StandInApp & { readonly encryptKey: string };
  readonly stamp: () => Stamp;
  readonly subscription: () => FeishuSubscription | undefined;
}

/**
 * POSTs an event body to the bot's events URL (encrypted and signed), or a card callback to its
 * cards URL (signed with the verification token).
 *
 * @throws FeishuAdapterError `invalid_argument` when the bot did not subscribe that URL.
 */
export function deliverEvent(
  at: DeliverState,
  body: Record<string, unknown>,
  to: 'events' | 'cards' = 'events',
): Promise<FeishuDelivery> {
  const url = target(at, to);
  const seal = () =>
    to === 'cards'
      ? signCardCallback(body, at.app.verificationToken, at.stamp())
      : sealEvent(body, at.app.encryptKey, at.stamp());
  const header = body['header'] as { event_id?: string } | undefined;
  const eventId = header?.event_id ?? (typeof body['token'] === 'string' ? body['token'] : undefined);
  return post(url, seal(), seal, eventId);
}

/**
 * Someone clicks `button` on the last card the bot sent (or on `more.messageId`): a
 * card.action.trigger event, or an old-style callback when the bot subscribed a cards URL.
 *
 * @throws FeishuAdapterError `invalid_argument` when no such card with such a button was sent.
 */
export function deliverClick(
  at: DeliverState,
  sent: readonly FeishuSentMessage[],
  button: string | RegExp,
  more: FeishuStandInClickOptions,
): Promise<FeishuDelivery> {
  const cards = sent.filter(
    (m) => m.buttons.length > 0 && (more.messageId === undefined || m.messageId === more.messageId),
  );
  const card = cards.at(-1);
  const found = card?.buttons.find((b) =>
    typeof button === 'string' ? b.label === button : button.test(b.label),
  );
  if (card === undefined || found === undefined)
    throw new FeishuAdapterError(
      'invalid_argument',
      `No card ${more.messageId ?? ''} with a button ${String(button)} was sent`,
      { details: { button: String(button) } },
    );
  const value = 'value' in more ? more.value : found.value;
  const where = { ...more, messageId: card.messageId, chatId: more.chatId ?? card.chatId };
  return at.subscription()?.cards === undefined
    ? deliverEvent(at, cardEventOf(at.app, value, where))
    : deliverEvent(at, cardCallbackOf(at.app, value, where), 'cards');
}

/** Sends the url_verification challenge to `next.events`; ok once the bot echoes it. */
export async function verifySubscription(
  at: DeliverState,
  challenge: string,
  next: FeishuSubscription,
): Promise<FeishuSubscribeResult> {
  const check = { challenge, token: at.app.verificationToken, type: 'url_verification' };
  const request = sealEvent(check, at.app.encryptKey, at.stamp());
  const answer = await sendRequest(next.events, { headers: request.headers, body: request.body }).catch(
    (error: unknown) => ({ status: 0, text: String(error) }),
  );
  const echoed = (parsed(answer.text) as { challenge?: unknown } | undefined)?.challenge;
  if (answer.status !== 200 || echoed !== challenge)
    return {
      ok: false,
      code: 'challenge_failed',
      message: `${next.events} did not answer the url_verification challenge (HTTP ${answer.status}: ${answer.text.slice(0, 200)})`,
    };
  return { ok: true };
}

async function post(
  url: string,
  request: SealedRequest,
  redo: () => SealedRequest,
  eventId: string | undefined,
): Promise<FeishuDelivery> {
  const answer = await sendRequest(url, { headers: request.headers, body: request.body });
  return {
    eventId,
    status: answer.status,
    answer: parsed(answer.text),
    redeliver: () => post(url, redo(), redo, eventId),
  };
}

function target(at: DeliverState, to: 'events' | 'cards'): string {
  const subscription = at.subscription();
  const url = to === 'cards' ? subscription?.cards : subscription?.events;
  if (url === undefined)
    throw new FeishuAdapterError(
      'invalid_argument',
      `The stand-in has no ${to} URL: call subscribe({ events${to === 'cards' ? ', cards' : ''} }) first`,
    );
  return url;
}

function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
