// The "Test your bot offline" example of README.md, checked and run by test/readme.test.ts:
// everything from the first import down is the README's code block, character for character.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createSlackAdapter } from '@parley/slack';
import { createSlackStandIn } from '@parley/slack/testing';
import { App, LogLevel } from '@slack/bolt';

const slack = await createSlackStandIn(); // Slack's Web API, Events API and interactivity on 127.0.0.1
const { token, signingSecret, url: slackApiUrl } = slack;
const app = new App({
  token,
  signingSecret,
  processBeforeResponse: true,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl },
});
const adapter = createSlackAdapter({ client: app.client });
app.use(adapter.middleware);
const bus = createMessageBus();
const gate = createConfirmGate({ bus });
await bus.attach(adapter);
const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
slack.setRequestUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);

const action = { name: 'orders.purge', args: { status: 'cancelled' } };
const ask = { sessionKey: `slack:${slack.channel}`, requester: slack.user };
const decision = gate.request({ ...ask, action, summary: 'Delete cancelled orders' });
await slack.waitFor('chat.postMessage'); // the card is in the channel
await slack.click('确认 Confirm'); // the member clicks its button: a signed request to the app
console.log((await decision).outcome); // confirmed

await app.stop();
await gate.close();
await bus.close();
await slack.close();
