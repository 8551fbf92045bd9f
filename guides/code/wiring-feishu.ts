// The Feishu section of "Wiring Parley into an existing bot"; compiled by the standalone guide test.
// #region feishu
import type * as lark from '@larksuiteoapi/node-sdk';
import { createHygieneInterceptor, createMessageBus, dispatchBySession } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createFeishuAdapter, type FeishuAdapter } from '@parley/feishu';
import { type Orders, purge } from './getting-started.js';

/** Adds a confirmed /purge to the Feishu bot you already have (its Client and EventDispatcher). */
export async function addParley(
  client: lark.Client,
  dispatcher: lark.EventDispatcher,
  botOpenId: string,
  orders: Orders,
): Promise<{ handleCardAction: FeishuAdapter['handleCardAction']; close(): Promise<void> }> {
  const feishu = createFeishuAdapter({ client, dispatcher, botOpenId }); // registers im.message.receive_v1 & co.
  const bus = createMessageBus();
  bus.intercept(createHygieneInterceptor()); // redeliveries, recalls, the bot's own messages
  const gate = createConfirmGate({ bus }); // takes the requester's 确认 / 取消 and card clicks
  await bus.attach(feishu);
  const sessions = dispatchBySession(bus, async (message) => {
    if (message.text.trim() !== '/purge') return; // your own message handling goes here
    const text = await purge(gate, orders, message); // waits in this chat only; other chats go on
    const { channel, chatId, threadId } = message; // the answer goes where the command came from
    await bus.publishOutbound({ channel, chatId, threadId, text });
  });
  // Give it to your CardActionHandler: new lark.CardActionHandler({ … }, handleCardAction)
  return {
    handleCardAction: feishu.handleCardAction,
    async close() {
      await gate.close();
      await bus.close();
      await sessions.done;
    },
  };
}
// #endregion feishu
