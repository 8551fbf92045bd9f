// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Lark SDK
// against the exported stand-in (@parley/feishu/testing): the Client sends to its OpenAPI, the
// EventDispatcher behind the SDK's own HTTP adapter gets its encrypted, signed event bodies (group
// replies arrive as `@_user_1 确认`), and clicks hit the buttons of the card the bot sent.
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import type { FeishuDelivery } from '@parley/feishu/testing';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { describe, it } from 'vitest';
import { ALICE, MALLORY, startFeishu, startProcess, T0 } from './harness.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

async function make(): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const feishu = await startFeishu(clock);
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => feishu.close(),
    async start() {
      const bot = await startProcess(clock, feishu);
      let stopped = false;
      // Each update is stamped by the stand-in's clock, which is the cases' clock (`at` is its now).
      const handed = async (delivery: Promise<FeishuDelivery>) => {
        const first = await delivery;
        return { redeliver: async () => void (await first.redeliver()) };
      };
      return {
        bus: bot.bus,
        text: (user, text) => handed(feishu.message(text, { sender: USERS[user], mentionBot: true })),
        click: (user, button) =>
          handed(feishu.click(button === 'confirm' ? /确认/ : /取消/, { user: USERS[user] })),
        prompts: () => feishu.sent.filter((message) => message.msgType === 'interactive').length,
        async stop() {
          if (stopped) return;
          stopped = true;
          await bot.close();
        },
      };
    },
  };
}

describe('the adapter conformance cases on the Lark SDK and the Feishu stand-in', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
