// How updates map to the bus, through the real grammY (webhook mode) and the Bot API stand-in.
import type { InboundMessage } from '@parley/bus';
import { createManualClock, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TelegramAdapterEvents } from '../src/index.js';
import type { TelegramStandIn, TelegramStandInUpdate } from '../src/testing.js';
import {
  ALICE,
  GROUP,
  GROUP_ID,
  type Harness,
  type HarnessOptions,
  OTHER_BOT,
  startHarness,
  startStandIn,
  T0,
} from './helpers.js';

let clock: ManualClock;
let api: TelegramStandIn;
let h: Harness | undefined;
let skipped: TelegramAdapterEvents['skipped'][];

async function start(options: Partial<HarnessOptions> = {}): Promise<Harness> {
  h = await startHarness({ mode: 'webhook', clock, api, raw: true, ...options });
  h.telegram.on('skipped', (event) => skipped.push(event));
  return h;
}

/** Feeds one update and returns what reached the bus queue. */
async function inboundOf(update: TelegramStandInUpdate): Promise<InboundMessage> {
  const harness = h ?? (await start());
  await harness.feed(update);
  return harness.bus.receiveInbound();
}

beforeEach(async () => {
  clock = createManualClock({ now: T0 * 1000 });
  api = await startStandIn(clock);
  skipped = [];
});

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await api.close();
});

describe('messages', () => {
  it('maps a group message to chat, sender, message identity and its whole-second stamp', async () => {
    const update = api.updates.message('hello', { date: T0 + 7 });
    const message = await inboundOf(update);
    expect(message).toMatchObject({
      channel: 'telegram',
      sessionKey: `telegram:${GROUP_ID}`,
      chatId: String(GROUP_ID),
      senderId: String(ALICE.id),
      text: 'hello',
      kind: 'message',
      eventId: `${GROUP_ID}:${update.message.message_id}`,
      createdAt: (T0 + 7) * 1000,
      senderIsBot: false,
      fromSelf: false,
    });
    expect(message.threadId).toBeUndefined();
    expect(message.raw).toEqual(update);
  });

  it('maps a direct chat to the chat of that user', async () => {
    const chat = { id: ALICE.id, first_name: 'Alice', type: 'private' } as const;
    const message = await inboundOf(api.updates.message('hi', { chat }));
    expect(message).toMatchObject({ chatId: String(ALICE.id), senderId: String(ALICE.id) });
  });

  it('maps a forum topic to a thread of the group', async () => {
    const message = await inboundOf(api.updates.message('确认', { thread: 42 }));
    expect(message).toMatchObject({ threadId: '42', sessionKey: `telegram:${GROUP_ID}:42` });
  });

  it('strips mentions of the bot and keeps mentions of anyone else', async () => {
    const entities = [
      { type: 'mention', offset: 0, length: 9 },
      { type: 'mention', offset: 13, length: 10 },
    ];
    const message = await inboundOf(api.updates.message('@shop_bot 确认 @alice_ops', { entities }));
    expect(message.text).toBe('确认 @alice_ops');
  });

  it('strips a text_mention of the bot and a mention written in other letter case', async () => {
    await start();
    const byId = [{ type: 'text_mention', offset: 3, length: 4, user: api.bot }];
    expect((await inboundOf(api.updates.message('确认 Shop', { entities: byId }))).text).toBe('确认');
    const upper = [{ type: 'mention', offset: 0, length: 9 }];
    expect((await inboundOf(api.updates.message('@SHOP_BOT  cancel', { entities: upper }))).text).toBe(
      'cancel',
    );
    const other = [{ type: 'bold', offset: 0, length: 2 }];
    expect((await inboundOf(api.updates.message('确认   now', { entities: other }))).text).toBe('确认   now');
  });

  it('reads the caption of a photo as its text', async () => {
    const update = {
      update_id: api.updates.nextUpdateId(),
      message: { message_id: 5, from: ALICE, chat: GROUP, date: T0, photo: [], caption: '确认' },
    };
    expect((await inboundOf(update)).text).toBe('确认');
  });

  it('maps an edit with its edit_date and an event id of its own', async () => {
    const original = api.updates.message('取消', { date: T0 });
    const edit = api.updates.edit(original, '确认', { date: T0 + 30 });
    const message = await inboundOf(edit);
    expect(message).toMatchObject({ kind: 'edit', text: '确认', createdAt: (T0 + 30) * 1000 });
    expect(message.eventId).not.toBe(`${GROUP_ID}:${original.message.message_id}`);
  });

  it("marks other bots' messages and the bot's own", async () => {
    await start();
    expect(await inboundOf(api.updates.message('确认', { from: OTHER_BOT }))).toMatchObject({
      senderIsBot: true,
      fromSelf: false,
    });
    expect(await inboundOf(api.updates.message('确认', { from: api.bot }))).toMatchObject({
      senderIsBot: true,
      fromSelf: true,
    });
  });

  it('skips messages without a sender and update kinds it does not map, passing them on', async () => {
    const seen: number[] = [];
    await start({ setup: (bot) => bot.use((ctx) => void seen.push(ctx.update.update_id)) });
    const anonymous = {
      update_id: api.updates.nextUpdateId(),
      message: { message_id: 6, sender_chat: GROUP, chat: GROUP, date: T0, text: '确认' },
    };
    const post = {
      update_id: api.updates.nextUpdateId(),
      channel_post: {
        message_id: 7,
        chat: { id: -100777, type: 'channel', title: 'News' },
        date: T0,
        text: 'x',
      },
    };
    await h?.feed(anonymous);
    await h?.feed(post);
    expect(skipped).toEqual([
      { updateId: anonymous.update_id, reason: 'no_sender' },
      { updateId: post.update_id, reason: 'unsupported' },
    ]);
    expect(seen).toEqual([anonymous.update_id, post.update_id]);
    expect(h?.bus.size.inbound).toBe(0);
  });
});

describe('clicks', () => {
  it('maps a click on a Parley button to a card_action carrying the value, and answers it', async () => {
    const click = api.updates.click('p:c:abc123.confirm');
    const message = await inboundOf(click);
    expect(message).toMatchObject({
      kind: 'card_action',
      chatId: String(GROUP_ID),
      senderId: String(ALICE.id),
      action: { confirmation: 'abc123.confirm' },
      eventId: `cb:${click.callback_query.id}`,
    });
    expect(message.createdAt).toBeUndefined(); // a click has no stamp: the bus's arrival time counts
    expect(api.calls('answerCallbackQuery')).toMatchObject([
      { params: { callback_query_id: click.callback_query.id } },
    ]);
  });

  it('maps a JSON button value back to the value', async () => {
    expect((await inboundOf(api.updates.click('p:j:{"page":2}'))).action).toEqual({ page: 2 });
  });

  it("passes clicks on the bot's own keyboards (and malformed Parley data) to its handlers", async () => {
    const own: string[] = [];
    await start({
      setup: (bot) => bot.on('callback_query:data', (ctx) => void own.push(ctx.callbackQuery.data)),
    });
    await h?.feed(api.updates.click('menu:orders'));
    await h?.feed(api.updates.click('p:j:{not json'));
    expect(own).toEqual(['menu:orders', 'p:j:{not json']);
    expect(h?.bus.size.inbound).toBe(0);
    expect(api.calls('answerCallbackQuery')).toHaveLength(0); // the bot's handler answers its own
  });

  it('skips a button of an inline-mode message: there is no chat to answer in', async () => {
    await start();
    const inline = {
      update_id: api.updates.nextUpdateId(),
      callback_query: {
        id: 'q-inline',
        from: ALICE,
        inline_message_id: 'AAAA',
        chat_instance: '1',
        data: 'p:c:x.confirm',
      },
    };
    await h?.feed(inline);
    expect(skipped).toEqual([{ updateId: inline.update_id, reason: 'inline_button' }]);
  });
});

describe('handing over to the bot', () => {
  it("passes what no interceptor consumed to the bot's own handlers instead of the bus queue", async () => {
    const commands: string[] = [];
    await start({
      setup: (bot, bus, telegram) => {
        bus.intercept({ name: 'ping', intercept: (message) => message.text === 'ping' });
        bus.intercept(telegram.handoff());
        bot.on('message:text', (ctx) => void commands.push(ctx.message.text));
        bot.on('callback_query:data', (ctx) => void commands.push(`click ${ctx.callbackQuery.data}`));
      },
    });
    await h?.feed(api.updates.message('ping'));
    await h?.feed(api.updates.message('/orders'));
    await h?.feed(api.updates.click('p:j:1'));
    expect(commands).toEqual(['/orders', 'click p:j:1']);
    expect(h?.bus.size.inbound).toBe(0);
  });

  it('passes every update on while the adapter is not attached to a bus', async () => {
    const texts: string[] = [];
    await start({ setup: (bot) => bot.on('message:text', (ctx) => void texts.push(ctx.message.text)) });
    await h?.bus.close(); // detaches the adapter
    await h?.feed(api.updates.message('hello'));
    expect(texts).toEqual(['hello']);
  });
});
