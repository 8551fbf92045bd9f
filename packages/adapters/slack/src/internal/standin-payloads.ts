// Events API bodies and interactivity payloads in the shapes Slack documents
// (https://api.slack.com/apis/events-api, https://api.slack.com/events/message and its subtypes,
// https://api.slack.com/reference/interaction-payloads/block-actions), extra fields included.
import type { Clock } from '@parley/core';
import type {
  SlackClickOptions,
  SlackEventCallback,
  SlackInteraction,
  SlackMessageBody,
  SlackStandInPayloads,
} from '../standin-payload-types.js';

export const APP_ID = 'A0APP00001';

/** Slack's `ts` for a clock time: seconds, then six digits (ms and a counter, so every ts is unique). */
export function slackTs(ms: number, seq = 0): string {
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000 + seq).padStart(6, '0')}`;
}

/** A message the app posted, as the Web API stand-in keeps it. */
export interface PostedMessage {
  readonly channel: string;
  readonly ts: string;
  readonly text: unknown;
  readonly blocks?: unknown;
  readonly threadTs?: string;
}

export interface PayloadContext {
  readonly clock: Clock;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly user: string;
  readonly channel: string;
  /** The last message the app posted with buttons. */
  lastCard(): PostedMessage | undefined;
}

/** The running numbers of event ids, message ts and trigger ids. */
interface Counters {
  events: number;
  seqs: number;
  triggers: number;
}

interface Button {
  readonly action_id?: unknown;
  readonly value?: unknown;
  readonly text?: { readonly text?: unknown };
}

export function createPayloads(context: PayloadContext): SlackStandInPayloads {
  const { clock, teamId, botUserId } = context;
  const counters: Counters = { events: 0, seqs: 100, triggers: 0 };

  function envelope(event: Readonly<Record<string, unknown>>, at = clock.now()): SlackEventCallback {
    return {
      token: 'verification-token-unused',
      team_id: teamId,
      api_app_id: APP_ID,
      event,
      type: 'event_callback',
      event_id: `Ev0${String(++counters.events).padStart(8, '0')}`,
      event_time: Math.floor(at / 1000),
      authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
    };
  }

  /** A `message` event of a subtype, with its own ts. */
  function changed(
    original: SlackMessageBody,
    at: number,
    fields: Record<string, unknown>,
  ): SlackEventCallback {
    const ts = slackTs(at, ++counters.seqs);
    const base = { type: 'message', channel: original.event.channel, hidden: true, event_ts: ts, ts };
    return envelope({ ...base, ...fields, channel_type: 'channel' }, at);
  }

  return {
    envelope,
    message(text, options = {}) {
      const at = options.at ?? clock.now();
      const ts = slackTs(at, options.seq ?? ++counters.seqs);
      const event = {
        type: 'message',
        channel: options.channel ?? context.channel,
        user: options.user ?? context.user,
        text,
        ts,
        event_ts: ts,
        channel_type: options.channelType ?? 'channel',
        team: teamId,
        blocks: [{ type: 'rich_text', block_id: 'b1', elements: [] }],
        ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs, parent_user_id: botUserId }),
      };
      return envelope(event, at) as SlackMessageBody; // envelope keeps the event as given
    },
    mention(message) {
      return envelope(
        { ...message.event, type: 'app_mention', channel_type: undefined },
        message.event_time * 1000,
      );
    },
    edit(original, text, options = {}) {
      const at = options.at ?? clock.now();
      const edited = {
        ...original.event,
        text,
        edited: { user: original.event.user, ts: slackTs(at, counters.seqs + 1) },
      };
      return changed(original, at, {
        subtype: 'message_changed',
        message: edited,
        previous_message: original.event,
      });
    },
    delete(original, options = {}) {
      const at = options.at ?? clock.now();
      return changed(original, at, {
        subtype: 'message_deleted',
        deleted_ts: original.event.ts,
        previous_message: original.event,
      });
    },
    botMessage(text, options = {}) {
      const at = options.at ?? clock.now();
      const ts = slackTs(at, ++counters.seqs);
      const event = {
        type: 'message',
        subtype: 'bot_message',
        channel: context.channel,
        bot_id: options.botId ?? 'B0HELPER01',
        username: 'helper',
        text,
        ts,
        event_ts: ts,
        channel_type: 'channel',
      };
      return envelope(event, at);
    },
    click: (button, options = {}) => clickPayload(context, counters, button, options),
  };
}

/** The buttons of a posted message's `actions` blocks. */
function buttonsOf(card: PostedMessage | undefined): Button[] {
  const blocks = Array.isArray(card?.blocks) ? (card.blocks as { type?: unknown; elements?: unknown }[]) : [];
  return blocks.flatMap((block) =>
    block.type === 'actions' && Array.isArray(block.elements) ? (block.elements as Button[]) : [],
  );
}

/** A `block_actions` click on a button of the last card (or of `options.messageTs`). */
function clickPayload(
  context: PayloadContext,
  counters: Counters,
  button: string,
  options: SlackClickOptions,
): SlackInteraction {
  const { clock, teamId, botUserId } = context;
  const at = options.at ?? clock.now();
  const card = context.lastCard();
  const messageTs = options.messageTs ?? card?.ts ?? slackTs(at, ++counters.seqs);
  const threadTs = options.threadTs ?? card?.threadTs;
  const channel = card?.channel ?? context.channel;
  const user = options.user ?? context.user;
  const found = buttonsOf(card).find(
    (b) => b.text?.text === button || b.action_id === button || b.value === button,
  );
  const thread = threadTs === undefined ? {} : { thread_ts: threadTs };
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: teamId },
    api_app_id: APP_ID,
    token: 'verification-token-unused',
    container: {
      type: 'message',
      message_ts: messageTs,
      channel_id: channel,
      is_ephemeral: false,
      ...thread,
    },
    trigger_id: `1000000000${++counters.triggers}.1234.abcdef`,
    team: { id: teamId, domain: 'ops' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channel, name: 'ops' },
    message: {
      type: 'message',
      user: botUserId,
      bot_id: context.botId,
      ts: messageTs,
      text: card?.text ?? '',
      ...thread,
    },
    state: { values: {} },
    response_url: 'https://hooks.slack.com/actions/T0/1/abc',
    actions: [
      {
        action_id: typeof found?.action_id === 'string' ? found.action_id : (options.actionId ?? 'parley:0'),
        block_id: 'parley-actions',
        text: {
          type: 'plain_text',
          text: typeof found?.text?.text === 'string' ? found.text.text : button,
          emoji: true,
        },
        value: typeof found?.value === 'string' ? found.value : button,
        type: 'button',
        action_ts: slackTs(at, 500),
      },
    ],
  };
}
