// The "Test your bot offline" example of README.md, checked and run by test/readme.test.ts:
// everything from the first import down is the README's code block, character for character.
import * as lark from '@larksuiteoapi/node-sdk';
import { createMessageBus } from '@parley/bus';
import { createFeishuAdapter } from '@parley/feishu';
import { createFeishuStandIn } from '@parley/feishu/testing';
import { serveLoopback } from '@parley/testing/loopback';

const feishu = await createFeishuStandIn(); // Feishu's OpenAPI and event delivery on 127.0.0.1
const client = new lark.Client({ appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url });
const dispatcher = new lark.EventDispatcher({ encryptKey: feishu.encryptKey });
const bus = createMessageBus();
await bus.attach(createFeishuAdapter({ client, dispatcher, botOpenId: feishu.botOpenId }));
const webhook = await serveLoopback(lark.adaptDefault('/webhook/event', dispatcher, { autoChallenge: true }));
await feishu.subscribe({ events: `${webhook.url}/webhook/event` });

await feishu.message('ping', { mentionBot: true }); // someone writes "@bot ping" in the group
const ping = await bus.receiveInbound(); // your bot: it answers every message
await bus.publishOutbound({ channel: 'feishu', chatId: ping.chatId, text: `pong: ${ping.text}` });
console.log(feishu.sent.map((message) => message.text)); // [ 'pong: ping' ]
await Promise.all([bus.close(), webhook.close(), feishu.close()]);
