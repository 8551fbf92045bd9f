// How Slack's events and interactions map to the bus, through the real Bolt (signed requests).
import type { InboundMessage } from '@parley/bus';
import { createManualClock, type ManualClock } from '@parley/core';
import type { App } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapterEvents } from '../src/index.js';
import type { SlackEventBody, SlackStandIn } from '../src/testing.js';
import {
  ALICE,
  CHANNEL,
  type Harness,
  type HarnessOptions,
  MALLORY,
  OTHER_BOT,
  startHarness,
  startStandIn,
  T0,
} from './helpers.js';

let clock: ManualClock;
let api: SlackStandIn;
let h: Harness | undefined;
let skipped: SlackAdapterEvents['skipped'][];

async function start(options: Partial<HarnessOptions> = {}): Promise<Harness> {
  h = await startHarness({ clock, api, raw: true, ...options });
  h.slack.on('skipped', (event) => skipped.push(event));
  return h;
}

async function inboundOf(body: SlackEventBody): Promise<InboundMessage> {
  const harness = h ?? (await start());
  expect(await harness.event(body)).toBe(200);
  return harness.bus.receiveInbound();
}

/** The app's own last middleware: acknowledges what reached it (a command, another action). */
function ackTheRest(app: App): void {
  app.use(async (args) => {
    await (args as { ack?: () => Promise<void> }).ack?.();
  });
}

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  api = await startStandIn(clock);
  skipped = [];
});

afterEach(async () => {
  await h?.stop();
  h = undefined;
  await api.close();
});

describe('messages', () => {
  it("maps a channel message to channel, user, the message's ts as id and stamp", async () => {
    const body = api.payloads.message('hello', { at: T0 + 7_250 });
    const message = await inboundOf(body);
    expect(message).toMatchObject({
      channel: 'slack',
      sessionKey: `slack:${CHANNEL}`,
      chatId: CHANNEL,
      senderId: ALICE,
      text: 'hello',
      kind: 'message',
      eventId: `${CHANNEL}:${body.event.ts}`,
      createdAt: T0 + 7_250,
      senderIsBot: false,
      fromSelf: false,
    });
    expect(message.threadId).toBeUndefined();
    expect(message.raw).toEqual(body);
  });

  it('maps a thread reply to a thread of the channel, and a direct message to its im channel', async () => {
    await start();
    const parent = '1767225600.000001';
    expect(await inboundOf(api.payloads.message('确认', { threadTs: parent }))).toMatchObject({
      threadId: parent,
      sessionKey: `slack:${CHANNEL}:${parent}`,
    });
    const im = await inboundOf(api.payloads.message('hi', { channel: 'D0ALICE001', channelType: 'im' }));
    expect(im).toMatchObject({ chatId: 'D0ALICE001', sessionKey: 'slack:D0ALICE001' });
  });

  it('strips mentions of the app, keeps other mentions and unescapes the text', async () => {
    const text = `<@${api.botUserId}> 确认 &lt;now&gt; &amp; <@${MALLORY}|mallory>`;
    expect((await inboundOf(api.payloads.message(text))).text).toBe(`确认 <now> & <@${MALLORY}|mallory>`);
  });

  it('counts a message and its app_mention as one event', async () => {
    await start({ raw: false });
    const message = api.payloads.message(`<@${api.botUserId}> 确认`);
    await h?.event(message);
    await h?.event(api.payloads.mention(message));
    expect(h?.bus.size.inbound).toBe(1);
    expect((await h?.bus.receiveInbound())?.text).toBe('确认');
  });

  it('maps an edit to kind edit, stamped when it was edited, with its event_id', async () => {
    const original = api.payloads.message('取消', { at: T0 });
    const edit = api.payloads.edit(original, '确认', { at: T0 + 30_000 });
    expect(await inboundOf(edit)).toMatchObject({
      kind: 'edit',
      text: '确认',
      senderId: ALICE,
      createdAt: T0 + 30_000,
      eventId: edit.event_id,
    });
  });

  it('maps a deletion to kind recall from the author of the deleted message', async () => {
    const original = api.payloads.message('确认', { at: T0 });
    const recall = await inboundOf(api.payloads.delete(original, { at: T0 + 9_000 }));
    expect(recall).toMatchObject({ kind: 'recall', text: '', senderId: ALICE, createdAt: T0 + 9_000 });
  });

  it("marks other bots' messages, and the app's own when Bolt's ignoreSelf is off", async () => {
    await start({ ignoreSelf: false });
    expect(await inboundOf(api.payloads.botMessage('确认'))).toMatchObject({
      senderId: OTHER_BOT,
      senderIsBot: true,
      fromSelf: false,
    });
    const own = api.payloads.envelope(
      { ...api.payloads.message('x').event, user: api.botUserId, bot_id: api.botId },
      T0,
    );
    expect(await inboundOf(own)).toMatchObject({ senderIsBot: true, fromSelf: true });
  });

  it("never sees the app's own messages with Bolt's default ignoreSelf", async () => {
    await start();
    await h?.event(
      api.payloads.envelope(
        { ...api.payloads.message('x').event, user: api.botUserId, bot_id: api.botId },
        T0,
      ),
    );
    expect(h?.bus.size.inbound).toBe(0);
  });

  it('skips other events and message subtypes, and deletions without an author, passing them on', async () => {
    const seen: string[] = [];
    await start({
      setup: (app) =>
        app.use(async ({ body }) => {
          seen.push(String((body as { event?: { type?: string } }).event?.type));
        }),
    });
    await h?.event(
      api.payloads.envelope(
        { type: 'reaction_added', user: ALICE, reaction: 'thumbsup', event_ts: '1.0' },
        T0,
      ),
    );
    await h?.event(
      api.payloads.envelope({ ...api.payloads.message('x').event, subtype: 'channel_join' }, T0),
    );
    await h?.event(
      api.payloads.envelope(
        { type: 'message', subtype: 'message_deleted', channel: CHANNEL, deleted_ts: '1.0', ts: '2.0' },
        T0,
      ),
    );
    await h?.event(
      api.payloads.envelope({ type: 'message', channel: CHANNEL, text: 'no user', ts: '3.0' }, T0),
    );
    expect(skipped.map((s) => s.reason)).toEqual(['unsupported', 'unsupported', 'no_sender', 'no_sender']);
    expect(skipped[0]?.type).toBe('event_callback/reaction_added');
    expect(seen).toHaveLength(4);
    expect(h?.bus.size.inbound).toBe(0);
  });

  it('refuses a request with a bad signature before the adapter sees it', async () => {
    await start();
    const body = JSON.stringify(api.payloads.message('确认'));
    expect(await h?.post(body, 'application/json', { ...api.sign(body), 'x-slack-signature': 'v0=00' })).toBe(
      401,
    );
    expect(h?.bus.size.inbound).toBe(0);
  });
});

describe('awkward payloads', () => {
  it('reads a ts without a fraction, and takes the event_id when a message has no ts', async () => {
    await start();
    const whole = api.payloads.envelope(
      { type: 'message', channel: CHANNEL, user: ALICE, text: 'a', ts: '1767225605' },
      T0,
    );
    expect(await inboundOf(whole)).toMatchObject({
      createdAt: 1_767_225_605_000,
      eventId: `${CHANNEL}:1767225605`,
    });
    const noTs = api.payloads.envelope({ type: 'message', channel: CHANNEL, user: ALICE }, T0);
    const message = await inboundOf(noTs);
    expect(message).toMatchObject({ eventId: noTs.event_id, text: '' });
    expect(message.createdAt).toBeUndefined();
  });

  it('stamps a change without an `edited` mark (a link unfurl) with its event_ts', async () => {
    const original = api.payloads.message('see https://example.com', { at: T0 });
    const unfurl = api.payloads.edit(original, 'see https://example.com', { at: T0 + 1_000 });
    const { edited: _, ...message } = unfurl.event['message'] as Record<string, unknown>;
    expect(await inboundOf({ ...unfurl, event: { ...unfurl.event, message } })).toMatchObject({
      kind: 'edit',
      createdAt: T0 + 1_000,
    });
  });

  it('skips events without a channel, changes without a message and bodies that are not events', async () => {
    await start({ setup: ackTheRest });
    await h?.event(api.payloads.envelope({ type: 'message', user: ALICE, text: 'x', ts: '4.0' }, T0));
    await h?.event(
      api.payloads.envelope({ type: 'message', subtype: 'message_changed', channel: CHANNEL, ts: '5.0' }, T0),
    );
    const command = 'command=%2Fpurge&text=orders&user_id=U0ALICE001&channel_id=C0OPS00001&trigger_id=1.2.3';
    await h?.post(command, 'application/x-www-form-urlencoded', api.sign(command));
    expect(skipped.map((s) => s.reason)).toEqual(['unsupported', 'unsupported', 'unsupported']);
  });

  it('reads a click without channel, thread on the message, trigger_id or value from its container', async () => {
    await start();
    const {
      channel: _c,
      trigger_id: _t,
      message,
      ...payload
    } = api.payloads.click('x', { threadTs: '1.000001', messageTs: '1.000002' });
    const { thread_ts: _th, ...bare } = message as Record<string, unknown>;
    const action: Record<string, unknown> = {
      ...(payload['actions'] as Record<string, unknown>[])[0],
      value: undefined,
    };
    await h?.interaction({ ...payload, message: bare, actions: [action] });
    const click = await h?.bus.receiveInbound();
    expect(click).toMatchObject({ chatId: CHANNEL, threadId: '1.000001', action: null });
    expect(click?.eventId).toBe(`action:${CHANNEL}:${String(action['action_ts'])}:${ALICE}`);
  });

  it('skips a click payload without Parley actions', async () => {
    await start({ setup: ackTheRest });
    await h?.interaction({ ...api.payloads.click('x'), actions: [] });
    expect(skipped.map((s) => s.reason)).toEqual(['unsupported']);
  });
});

describe('clicks', () => {
  it("maps a click on a Parley button to a card_action with the value, the user and Slack's action_ts", async () => {
    await start();
    const payload = api.payloads.click(JSON.stringify({ confirmation: 'abc.confirm' }), { at: T0 + 4_321 });
    expect(await h?.interaction(payload)).toBe(200);
    expect(await h?.bus.receiveInbound()).toMatchObject({
      kind: 'card_action',
      chatId: CHANNEL,
      senderId: ALICE,
      action: { confirmation: 'abc.confirm' },
      eventId: `action:${payload.trigger_id}`,
      createdAt: T0 + 4_321,
    });
  });

  it('keeps the thread of a card posted in a thread, and none for a thread parent', async () => {
    await start();
    const parent = '1767225600.000001';
    await h?.interaction(api.payloads.click('1', { threadTs: parent, messageTs: '1767225600.000002' }));
    expect((await h?.bus.receiveInbound())?.threadId).toBe(parent);
    await h?.interaction(api.payloads.click('2', { threadTs: parent, messageTs: parent }));
    expect((await h?.bus.receiveInbound())?.threadId).toBeUndefined();
  });

  it('delivers a value that is not JSON as null', async () => {
    await start();
    await h?.interaction(api.payloads.click('{broken'));
    expect((await h?.bus.receiveInbound())?.action).toBeNull();
  });

  it("passes the app's own actions to its listeners", async () => {
    const own: string[] = [];
    await start({
      setup: (app) =>
        app.action('refresh', async ({ ack, action }) => {
          await ack();
          own.push((action as { value: string }).value);
        }),
    });
    expect(await h?.interaction(api.payloads.click('v1', { actionId: 'refresh' }))).toBe(200);
    expect(own).toEqual(['v1']);
    expect(skipped).toMatchObject([{ reason: 'unsupported', type: 'block_actions' }]);
  });
});

describe('handing over to the app', () => {
  it("passes what no interceptor consumed to the app's listeners instead of the bus queue", async () => {
    const heard: string[] = [];
    await start({
      setup: (app, bus, slack) => {
        bus.intercept({ name: 'ping', intercept: (message) => message.text === 'ping' });
        bus.intercept(slack.handoff());
        app.message(async ({ message }) => {
          heard.push(String((message as { text?: string }).text));
        });
      },
    });
    await h?.event(api.payloads.message('ping', { seq: 1 }));
    await h?.event(api.payloads.message('status', { seq: 2 }));
    expect(heard).toEqual(['status']);
    expect(h?.bus.size.inbound).toBe(0);
  });

  it('passes every request on while the adapter is not attached', async () => {
    const heard: string[] = [];
    await start({ setup: (app) => app.message(async () => void heard.push('x')) });
    await h?.bus.close();
    await h?.event(api.payloads.message('hello'));
    expect(heard).toEqual(['x']);
  });
});
