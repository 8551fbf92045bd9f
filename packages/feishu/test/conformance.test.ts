// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Lark SDK:
// Client against the OpenAPI stand-in, EventDispatcher behind the SDK's own HTTP adapter, fed with
// encrypted, signed event bodies as Feishu posts them (group replies arrive as `@_user_1 确认`).
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { describe, it } from 'vitest';
import { ALICE, cardEvent, encrypted, MALLORY, mentionReply, T0 } from './events.js';
import { buttonValue, startProcess } from './harness.js';
import { startOpenApi } from './openapi.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

async function make(): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const api = await startOpenApi(clock);
  const cards = () => api.messages().filter((call) => call.body['msg_type'] === 'interactive');
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => api.close(),
    async start() {
      const bot = await startProcess(clock, api);
      let stopped = false;
      const deliver = async (body: Record<string, unknown>) => {
        await bot.post('/webhook/event', encrypted(body));
        // Feishu's redelivery: the same event (same event_id), sealed and signed again.
        return { redeliver: async () => void (await bot.post('/webhook/event', encrypted(body))) };
      };
      return {
        bus: bot.bus,
        text: (user, text, at) => deliver(mentionReply(text, { sender: USERS[user], at })),
        click(user, button, at) {
          const card = cards().at(-1);
          if (card === undefined) throw new Error('No prompt card was sent');
          const value = buttonValue(card, button === 'confirm' ? /确认/ : /取消/);
          const messageId = `om_sent_${api.messages().indexOf(card) + 1}`;
          return deliver(cardEvent(value, { operator: USERS[user], messageId, at }));
        },
        prompts: () => cards().length,
        async stop() {
          if (stopped) return;
          stopped = true;
          await bot.close();
        },
      };
    },
  };
}

describe('the adapter conformance cases on the Lark SDK', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
