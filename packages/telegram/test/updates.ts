// Updates in the shapes the Bot API documents (https://core.telegram.org/bots/api#update),
// extra fields included, as Telegram sends them to getUpdates and to a webhook.
import { BOT } from './bot-api.js';

/** 2026-01-01T00:00:00Z, in Unix seconds. */
export const T0 = 1_767_225_600;
export const GROUP_ID = -1_001_234_567_890;
export const ALICE = {
  id: 7_002,
  is_bot: false,
  first_name: 'Alice',
  username: 'alice_ops',
  language_code: 'zh-hans',
};
export const MALLORY = { id: 7_666, is_bot: false, first_name: 'Mallory' };
export const OTHER_BOT = { id: 8_000_000_777, is_bot: true, first_name: 'Helper', username: 'helper_bot' };
export const GROUP = { id: GROUP_ID, title: 'Ops', type: 'supergroup' };

let nextUpdateId = 900_000_000;
/** A fresh update_id, increasing like Telegram's. */
export const updateId = (): number => ++nextUpdateId;

export interface TextOptions {
  readonly from?: object;
  readonly at?: number;
  readonly chat?: object;
  readonly entities?: readonly object[];
  readonly thread?: number;
}

/** A text message (a group by default). */
export function textUpdate(text: string, options: TextOptions = {}) {
  const id = updateId();
  return {
    update_id: id,
    message: {
      message_id: id - 899_999_000,
      from: options.from ?? ALICE,
      chat: options.chat ?? GROUP,
      date: options.at ?? T0 + 5,
      text,
      ...(options.thread === undefined ? {} : { message_thread_id: options.thread, is_topic_message: true }),
      ...(options.entities === undefined ? {} : { entities: options.entities }),
    },
  };
}

/** The edit of a message: a new update carrying the message with its `edit_date`. */
export function editUpdate(original: ReturnType<typeof textUpdate>, text: string, at: number) {
  return { update_id: updateId(), edited_message: { ...original.message, text, edit_date: at } };
}

/** A click on an inline keyboard button of a message the bot sent to the group. */
export function clickUpdate(data: string, from: object = ALICE, messageId = 101) {
  const id = updateId();
  return {
    update_id: id,
    callback_query: {
      id: `4382bfdwdsb323b2d${id}`,
      from,
      message: {
        message_id: messageId,
        from: BOT,
        chat: GROUP,
        date: T0,
        text: '以下操作需要确认：…',
      },
      chat_instance: '-8271652351423',
      data,
    },
  };
}
