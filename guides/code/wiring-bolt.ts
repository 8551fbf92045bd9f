// The Bolt section of "Wiring Parley into an existing bot"; compiled by the standalone guide test.
// #region bolt
import { createHygieneInterceptor, createMessageBus, dispatchBySession } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createSlackAdapter } from '@parley/slack';
import type { App } from '@slack/bolt';
import { type Orders, purge } from './getting-started.js';

/** Adds a confirmed `purge` to the Bolt app you already have; call it before app.start(). */
export async function addParley(app: App, orders: Orders): Promise<() => Promise<void>> {
  const slack = createSlackAdapter({ client: app.client });
  app.use(slack.middleware); // before your own listeners
  const bus = createMessageBus();
  bus.intercept(createHygieneInterceptor()); // retries, edits, deletions, other bots
  const gate = createConfirmGate({ bus }); // takes the requester's 确认 / 取消 and button clicks
  const handoff = slack.handoff(); // everything but `purge` goes on to your listeners
  bus.intercept({ name: handoff.name, intercept: (m) => m.text.trim() !== 'purge' && handoff.intercept(m) });
  await bus.attach(slack);
  const dispatcher = dispatchBySession(bus, async (message) => {
    const text = await purge(gate, orders, message); // a thread is its own session
    const { channel, chatId, threadId } = message; // the answer goes where the command came from
    await bus.publishOutbound({ channel, chatId, threadId, text });
  });
  return async () => {
    await gate.close();
    await bus.close();
    await dispatcher.done;
  };
}
// #endregion bolt
