// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real
// dingtalk-stream DWClient: connected through the gateway stand-in to its stream socket, fed with
// robot-message and card-callback frames as DingTalk pushes them, acknowledged frame by frame.
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { TOPIC_CARD, TOPIC_ROBOT } from 'dingtalk-stream';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { lastCardButtons, startProcess } from './harness.js';
import { ALICE, cardCallback, MALLORY, robotMessage, T0 } from './payloads.js';
import { startDingTalk } from './standin.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

async function make(): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const dingtalk = await startDingTalk();
  const cards = () => dingtalk.sends.filter((send) => send.path === '/v1.0/card/instances/createAndDeliver');
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => dingtalk.close(),
    async start() {
      const bot = await startProcess(clock, dingtalk);
      let stopped = false;
      const deliver = async (topic: string, data: Record<string, unknown>) => {
        const { messageId, acked } = dingtalk.push(topic, data);
        await acked;
        // DingTalk's redelivery of an unacknowledged frame: the same frame and payload again.
        return { redeliver: async () => void (await dingtalk.push(topic, data, messageId).acked) };
      };
      return {
        bus: bot.bus,
        text: (user, text, at) => deliver(TOPIC_ROBOT, robotMessage(text, { sender: USERS[user], at })),
        click(user, button) {
          const chosen = lastCardButtons(dingtalk)[button === 'confirm' ? 0 : 1];
          if (chosen === undefined) throw new Error('No such button on the prompt card');
          const params = { value: chosen.value };
          return deliver(
            TOPIC_CARD,
            cardCallback(params, { user: USERS[user], outTrackId: chosen.outTrackId }),
          );
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

beforeEach(() => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined); // DWClient announces each connect
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('the adapter conformance cases on dingtalk-stream', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
