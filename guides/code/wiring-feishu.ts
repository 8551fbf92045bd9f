// The Feishu section of "Wiring Parley into an existing bot": a bot built the way the
// @larksuiteoapi/node-sdk docs build one, with Parley's lines added. The guide tests run this file
// as a program against a stand-in of the OpenAPI (FEISHU_DOMAIN) and post encrypted events to its
// webhook; without that variable it talks to Feishu.
// #region feishu
import { createServer } from 'node:http';
import * as lark from '@larksuiteoapi/node-sdk';
import { createHygieneInterceptor, createMessageBus, dispatchBySession } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createFeishuAdapter } from '@parley/feishu';
import { type Orders, purge } from './getting-started.js';

const orders: Orders = { deleteCancelled: async () => 3 }; // your data layer
const appId = process.env.FEISHU_APP_ID ?? '';
const appSecret = process.env.FEISHU_APP_SECRET ?? '';
const client = new lark.Client({ appId, appSecret, domain: process.env.FEISHU_DOMAIN ?? lark.Domain.Feishu });
const eventDispatcher = new lark.EventDispatcher({ encryptKey: process.env.FEISHU_ENCRYPT_KEY }).register({
  'im.message.receive_v1': async ({ message }) => {
    const content = JSON.stringify({ text: 'Got it.' });
    await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: message.chat_id, msg_type: 'text', content },
    });
  },
});

// Parley: after your register(…), before the webhook or long connection starts.
const yours = eventDispatcher.handles.get('im.message.receive_v1'); // called below for the rest
eventDispatcher.unregister('im.message.receive_v1'); // the adapter registers its own
const botOpenId = process.env.FEISHU_BOT_OPEN_ID ?? ''; // the bot's own open_id
const feishu = createFeishuAdapter({ client, dispatcher: eventDispatcher, botOpenId });
const bus = createMessageBus();
bus.intercept(createHygieneInterceptor());
const gate = createConfirmGate({ bus });
bus.intercept({
  name: 'your-handler',
  async intercept(m) {
    if (m.text.trim() === '/purge') return false;
    if (m.kind === 'message') await yours?.(m.raw);
    return true;
  },
});
await bus.attach(feishu);
dispatchBySession(bus, async (m) => {
  const text = await purge(gate, orders, m);
  await bus.publishOutbound({ channel: m.channel, chatId: m.chatId, threadId: m.threadId, text });
});

// Your webhook (or `new lark.WSClient({ appId, appSecret }).start({ eventDispatcher })`), unchanged.
const server = createServer(lark.adaptDefault('/webhook/event', eventDispatcher, { autoChallenge: true }));
server.listen(Number(process.env.PORT ?? 3000), () => console.log('Feishu bot is listening'));
// #endregion feishu
