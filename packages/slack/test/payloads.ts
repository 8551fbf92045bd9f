// Events API and interactivity payloads in the shapes Slack documents
// (https://api.slack.com/apis/events-api, https://api.slack.com/events/message and its subtypes,
// https://api.slack.com/reference/interaction-payloads/block-actions), extra fields included.
import { BOT_ID, BOT_USER, TEAM, tsAt } from './web-api.js';

/** 2026-01-01T00:00:00Z in ms. */
export const T0 = 1_767_225_600_000;
export const CHANNEL = 'C0OPS00001';
export const ALICE = 'U0ALICE001';
export const MALLORY = 'U0MALLORY1';
export const OTHER_BOT = 'B0HELPER01';

let events = 0;
const nextEventId = (): string => `Ev0${String(++events).padStart(8, '0')}`;

/** The Events API envelope around one event. */
export function envelope<E extends object>(event: E, eventTime: number, eventId = nextEventId()) {
  return {
    token: 'verification-token-unused',
    team_id: TEAM,
    api_app_id: 'A0APP00001',
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(eventTime / 1000),
    authorizations: [{ team_id: TEAM, user_id: BOT_USER, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  };
}

export interface MessageOptions {
  readonly user?: string;
  readonly at?: number;
  readonly channel?: string;
  readonly channelType?: 'channel' | 'group' | 'im' | 'mpim';
  readonly threadTs?: string;
  readonly seq?: number;
}

/** A `message` event (a user's new message), wrapped. */
export function messageEvent(text: string, options: MessageOptions = {}) {
  const at = options.at ?? T0 + 5_000;
  const ts = tsAt(at, options.seq ?? 100);
  return envelope(
    {
      type: 'message',
      channel: options.channel ?? CHANNEL,
      user: options.user ?? ALICE,
      text,
      ts,
      event_ts: ts,
      channel_type: options.channelType ?? 'channel',
      team: TEAM,
      blocks: [{ type: 'rich_text', block_id: 'b1', elements: [] }],
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs, parent_user_id: BOT_USER }),
    },
    at,
  );
}

/** The `app_mention` Slack sends for the same message when it mentions the app. */
export function mentionOf(message: ReturnType<typeof messageEvent>) {
  return envelope(
    { ...message.event, type: 'app_mention', channel_type: undefined },
    message.event_time * 1000,
  );
}

/** A `message_changed` event: the edited message, its `edited` stamp and the previous version. */
export function editEvent(original: ReturnType<typeof messageEvent>, text: string, at: number) {
  const ts = tsAt(at, 7);
  return envelope(
    {
      type: 'message',
      subtype: 'message_changed',
      channel: original.event.channel,
      hidden: true,
      message: { ...original.event, text, edited: { user: original.event.user, ts } },
      previous_message: original.event,
      event_ts: ts,
      ts,
      channel_type: 'channel',
    },
    at,
  );
}

/** A `message_deleted` event. */
export function deleteEvent(original: ReturnType<typeof messageEvent>, at: number) {
  const ts = tsAt(at, 9);
  return envelope(
    {
      type: 'message',
      subtype: 'message_deleted',
      channel: original.event.channel,
      hidden: true,
      deleted_ts: original.event.ts,
      previous_message: original.event,
      event_ts: ts,
      ts,
      channel_type: 'channel',
    },
    at,
  );
}

/** A `bot_message` from another integration. */
export function botMessage(text: string, at = T0 + 5_000) {
  const ts = tsAt(at, 300);
  return envelope(
    {
      type: 'message',
      subtype: 'bot_message',
      channel: CHANNEL,
      bot_id: OTHER_BOT,
      username: 'helper',
      text,
      ts,
      event_ts: ts,
      channel_type: 'channel',
    },
    at,
  );
}

export interface ClickOptions {
  readonly user?: string;
  readonly at?: number;
  readonly messageTs?: string;
  readonly threadTs?: string;
  readonly actionId?: string;
}

let triggers = 0;

/** A `block_actions` payload: a click on a button of a message the app posted. */
export function blockActions(value: string, options: ClickOptions = {}) {
  const at = options.at ?? T0 + 5_000;
  const messageTs = options.messageTs ?? tsAt(T0, 1);
  const user = options.user ?? ALICE;
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: TEAM },
    api_app_id: 'A0APP00001',
    token: 'verification-token-unused',
    container: {
      type: 'message',
      message_ts: messageTs,
      channel_id: CHANNEL,
      is_ephemeral: false,
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    },
    trigger_id: `1000000000${++triggers}.1234.abcdef`,
    team: { id: TEAM, domain: 'ops' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: CHANNEL, name: 'ops' },
    message: {
      type: 'message',
      user: BOT_USER,
      bot_id: BOT_ID,
      ts: messageTs,
      text: '以下操作需要确认',
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    },
    state: { values: {} },
    response_url: 'https://hooks.slack.com/actions/T0/1/abc',
    actions: [
      {
        action_id: options.actionId ?? 'parley:0',
        block_id: 'parley-actions',
        text: { type: 'plain_text', text: '确认', emoji: true },
        value,
        type: 'button',
        action_ts: tsAt(at, 500),
      },
    ],
  };
}
