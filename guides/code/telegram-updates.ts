// Telegram webhook bodies in the shape the Bot API documents and sends (with the fields the
// adapter ignores, such as first_name, entities and chat_instance), for feeding the adapter in
// tests. Times are Unix seconds, as Telegram sends them.

// #region fixtures
/** 2026-01-01T00:00:00Z, in Unix seconds. */
export const T0 = 1_767_225_600;
export const BOT_USER_ID = 8_000_000_001;
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

const GROUP = { id: GROUP_ID, title: 'Ops', type: 'supergroup' };
// #endregion fixtures

// #region message-update
/** A text message in the Ops group. */
export function textUpdate(updateId: number, text: string, options: { from?: object; at?: number } = {}) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId - 900_000_000,
      from: options.from ?? ALICE,
      chat: GROUP,
      date: options.at ?? T0 + 5,
      text,
      ...(text.startsWith('/')
        ? { entities: [{ offset: 0, length: text.length, type: 'bot_command' }] }
        : {}),
    },
  };
}
// #endregion message-update

/** The same message in a forum topic (thread 42). */
export function topicUpdate(updateId: number, text: string) {
  const update = textUpdate(updateId, text);
  return { ...update, message: { ...update.message, message_thread_id: 42, is_topic_message: true } };
}

/** Alice edits her message: a new update, `edited_message` with an `edit_date`. */
export function editUpdate(updateId: number, messageId: number, text: string) {
  return {
    update_id: updateId,
    edited_message: {
      message_id: messageId,
      from: ALICE,
      chat: GROUP,
      date: T0 + 5,
      edit_date: T0 + 9,
      text,
    },
  };
}

// #region callback-update
/** A click on an inline keyboard button of a message the bot sent. */
export function clickUpdate(updateId: number, data: string, from: object = ALICE) {
  return {
    update_id: updateId,
    callback_query: {
      id: `4382bfdwdsb323b2d${updateId}`,
      from,
      message: {
        message_id: 58,
        from: { id: BOT_USER_ID, is_bot: true, first_name: 'Shop bot', username: 'shop_bot' },
        chat: GROUP,
        date: T0,
        text: '以下操作需要确认：…',
      },
      chat_instance: '-8271652351423',
      data,
    },
  };
}
// #endregion callback-update

/** A post in a channel: no `from`, nobody to answer a confirmation. */
export const channelPost = {
  update_id: 900_000_900,
  channel_post: {
    message_id: 3,
    chat: { id: -1_009_999, type: 'channel', title: 'News' },
    date: T0,
    text: 'hi',
  },
};
