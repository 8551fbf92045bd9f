import type { InboundInput, PlatformOrder } from '@parley/bus';
import { type JsonValue, safeParseJson } from '@parley/core';

/** An inbound input without its channel (the bus fills that in). */
export type Inbound = Omit<InboundInput, 'channel'>;

/** Who the app is in its workspace (Bolt's `context.botUserId` / `context.botId`). */
export interface Self {
  readonly botUserId?: string | undefined;
  readonly botId?: string | undefined;
}

/** Parley's buttons are recognised by this action_id prefix; any other action is the app's own. */
export const ACTION_PREFIX = 'parley:';

/** The longest button value Slack accepts, in characters. */
export const MAX_BUTTON_VALUE_LENGTH = 2000;

/** What one Bolt request maps to. */
export type Mapped =
  | { readonly kind: 'inbound'; readonly input: Inbound; readonly ack: boolean }
  | { readonly kind: 'skip'; readonly reason: 'unsupported' | 'no_sender' };

type Json = { readonly [key: string]: unknown };

const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * A Slack `ts` ("1767225600.123456", seconds with microseconds) in epoch ms, floored: a lower
 * bound on when the message was written. Read as text, so no float rounding moves it.
 */
export function tsToMs(ts: string | undefined): number | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(ts ?? '');
  if (match === null) return undefined;
  return Number(match[1]) * 1000 + Number((match[2] ?? '').padEnd(3, '0').slice(0, 3));
}

/**
 * A message's place in its channel's order from its `ts`: Slack gives every message of a channel
 * (thread replies included) a unique, increasing `ts` of seconds and six digits of micro-units, so
 * "1700000000.000100" is `[1700000000, 100]`, read as text with no floating point. A `ts` of any
 * other shape, or no channel, gives no order rather than a wrong one.
 */
export function tsToOrder(
  adapterChannel: string,
  chatId: string | undefined,
  ts: string | undefined,
): PlatformOrder | undefined {
  const match = /^(\d{1,15})\.(\d{6})$/.exec(ts ?? '');
  if (match === null || chatId === undefined || chatId === '') return undefined;
  const seconds = Number(match[1]);
  if (!Number.isSafeInteger(seconds)) return undefined;
  return { scope: `${adapterChannel}:${chatId}`, position: [seconds, Number(match[2])] };
}

/**
 * Maps the body of one Bolt request (an Events API `event_callback` or a `block_actions`
 * interaction) to what the bus gets.
 */
export function mapBody(body: unknown, self: Self, adapterChannel: string): Mapped {
  const root = object(body);
  if (root?.['type'] === 'block_actions') return mapAction(root, self);
  const event = object(root?.['event']);
  if (root?.['type'] !== 'event_callback' || event === undefined)
    return { kind: 'skip', reason: 'unsupported' };
  const type = event['type'];
  if (type !== 'message' && type !== 'app_mention') return { kind: 'skip', reason: 'unsupported' };
  const channel = text(event['channel']);
  if (channel === undefined) return { kind: 'skip', reason: 'unsupported' };
  const subtype = text(event['subtype']);
  const eventId = text(root['event_id']);
  if (subtype === 'message_changed') {
    const message = object(event['message']);
    const edited = object(message?.['edited']);
    return message === undefined
      ? { kind: 'skip', reason: 'unsupported' }
      : post(message, channel, self, {
          kind: 'edit',
          eventId,
          createdAt: tsToMs(text(edited?.['ts']) ?? text(event['event_ts'])),
          // An edit keeps the place of the message it edits: its `ts`, not the edit's.
          order: tsToOrder(adapterChannel, channel, text(message['ts'])),
          raw: body,
        });
  }
  if (subtype === 'message_deleted') {
    const previous = object(event['previous_message']);
    return previous === undefined
      ? { kind: 'skip', reason: 'no_sender' }
      : post(previous, channel, self, {
          kind: 'recall',
          text: '',
          eventId,
          createdAt: tsToMs(text(event['event_ts'])),
          raw: body,
        });
  }
  if (subtype !== undefined && !MESSAGE_SUBTYPES.has(subtype)) return { kind: 'skip', reason: 'unsupported' };
  // A message and the app_mention of it share channel and ts: one id for both, and for retries.
  const ts = text(event['ts']);
  return post(event, channel, self, {
    kind: 'message',
    eventId: ts === undefined ? eventId : `${channel}:${ts}`,
    createdAt: tsToMs(ts),
    order: tsToOrder(adapterChannel, channel, ts),
    raw: body,
  });
}

/** Subtypes that are a person's (or a bot's) new message. */
const MESSAGE_SUBTYPES = new Set(['bot_message', 'thread_broadcast', 'file_share', 'me_message']);

function post(message: Json, channel: string, self: Self, extra: Partial<Inbound>): Mapped {
  const botId = text(message['bot_id']);
  const senderId = text(message['user']) ?? botId;
  if (senderId === undefined) return { kind: 'skip', reason: 'no_sender' };
  const threadTs = threadOf(text(message['thread_ts']), text(message['ts']));
  return {
    kind: 'inbound',
    ack: false,
    input: {
      chatId: channel,
      ...(threadTs === undefined ? {} : { threadId: threadTs }),
      senderId,
      senderIsBot: botId !== undefined || message['subtype'] === 'bot_message',
      fromSelf:
        (self.botUserId !== undefined && senderId === self.botUserId) ||
        (self.botId !== undefined && botId === self.botId),
      text: plainText(text(message['text']) ?? '', self.botUserId),
      ...extra,
    },
  };
}

/**
 * Slack's message text as a person typed it: mentions of the app (`<@U123>`, `<@U123|name>`)
 * removed, `&lt;` `&gt;` `&amp;` unescaped, trimmed. Other mentions and links stay as Slack wrote them.
 */
function plainText(value: string, botUserId: string | undefined): string {
  const stripped =
    botUserId === undefined
      ? value
      : value.replace(new RegExp(`\\s*<@${escapeRegExp(botUserId)}(?:\\|[^>]*)?>\\s*`, 'g'), ' ');
  return stripped.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').trim();
}

/** The thread a message is in: its `thread_ts`, unless it is the thread's parent (then none). */
function threadOf(threadTs: string | undefined, ts: string | undefined): string | undefined {
  return threadTs === ts ? undefined : threadTs;
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mapAction(body: Json, self: Self): Mapped {
  const actions = Array.isArray(body['actions']) ? body['actions'] : [];
  const action = actions.map(object).find((a) => text(a?.['action_id'])?.startsWith(ACTION_PREFIX) === true);
  const user = text(object(body['user'])?.['id']);
  const container = object(body['container']);
  const message = object(body['message']);
  const channel = text(object(body['channel'])?.['id']) ?? text(container?.['channel_id']);
  if (action === undefined || channel === undefined) return { kind: 'skip', reason: 'unsupported' };
  if (user === undefined) return { kind: 'skip', reason: 'no_sender' };
  const threadTs = threadOf(
    text(message?.['thread_ts']) ?? text(container?.['thread_ts']),
    text(message?.['ts']) ?? text(container?.['message_ts']),
  );
  const trigger = text(body['trigger_id']);
  const actionTs = text(action['action_ts']);
  return {
    kind: 'inbound',
    ack: true,
    input: {
      chatId: channel,
      ...(threadTs === undefined ? {} : { threadId: threadTs }),
      senderId: user,
      senderIsBot: false,
      fromSelf: user === self.botUserId,
      kind: 'card_action',
      action: buttonValue(text(action['value'])),
      eventId: `action:${trigger ?? `${channel}:${actionTs}:${user}`}`,
      createdAt: tsToMs(actionTs),
      raw: body,
    },
  };
}

/** A Parley button's value is JSON; anything else (edited by hand, truncated) comes through as null. */
function buttonValue(value: string | undefined): JsonValue {
  if (value === undefined) return null;
  const parsed = safeParseJson(value, { maxBytes: MAX_BUTTON_VALUE_LENGTH * 4 });
  return parsed.ok ? parsed.value : null;
}
