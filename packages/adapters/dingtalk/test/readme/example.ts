// The "Test your bot offline" example of README.md, checked and run by test/readme.test.ts:
// everything from the first import down is the README's code block, character for character.
import { createMessageBus } from '@parley/bus';
import { createDingTalkAdapter } from '@parley/dingtalk';
import { createDingTalkStandIn } from '@parley/dingtalk/testing';
import { DWClient } from 'dingtalk-stream';

const dingtalk = await createDingTalkStandIn(); // DingTalk's stream gateway and OpenAPI on 127.0.0.1
const client = new DWClient({ clientId: dingtalk.clientId, clientSecret: dingtalk.clientSecret });
const bus = createMessageBus();
await bus.attach(createDingTalkAdapter({ client, robotCode: dingtalk.clientId, apiBase: dingtalk.url }));
await dingtalk.connected();

await dingtalk.message('ping').acked; // someone @-mentions the robot in the group
const ping = await bus.receiveInbound(); // your bot: it answers every message
await bus.publishOutbound({ channel: 'dingtalk', chatId: ping.chatId, text: `pong: ${ping.text}` });
console.log(dingtalk.sent.map((message) => message.text)); // [ 'pong: ping' ]
await bus.close();
await dingtalk.close();
