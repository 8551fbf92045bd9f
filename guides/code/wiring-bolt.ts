// The Bolt section of "Wiring Parley into an existing bot": an app started the way Bolt's docs
// start one, with Parley's lines added. The guide tests run this file as a program against a
// stand-in of the Web API (SLACK_API_URL) and post signed events to it; without that variable it
// talks to Slack.
// #region bolt
import { createHygieneInterceptor, createMessageBus, dispatchBySession } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createSlackAdapter } from '@parley/slack';
import { App } from '@slack/bolt';
import { type Orders, purge } from './getting-started.js';

const orders: Orders = { deleteCancelled: async () => 3 }; // your data layer
const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  signingSecret: process.env.SLACK_SIGNING_SECRET,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL, rejectRateLimitedCalls: true },
});

// Parley: right after `new App(…)`, before your own listeners.
const slack = createSlackAdapter({ client: app.client });
app.use(slack.middleware);
const bus = createMessageBus();
bus.intercept(createHygieneInterceptor());
const gate = createConfirmGate({ bus });
const handoff = slack.handoff();
bus.intercept({ name: handoff.name, intercept: (m) => m.text.trim() !== 'purge' && handoff.intercept(m) });
await bus.attach(slack);
dispatchBySession(bus, async (m) => {
  const text = await purge(gate, orders, m);
  await bus.publishOutbound({ channel: m.channel, chatId: m.chatId, threadId: m.threadId, text });
});

// Your listeners, unchanged: they get every event but `purge` and the answers to its prompt.
app.message('hello', async ({ say }) => {
  await say('Hey there!');
});

await app.start(Number(process.env.PORT ?? 3000));
console.log('⚡️ Bolt app is running!');
// #endregion bolt
