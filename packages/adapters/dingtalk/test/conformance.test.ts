// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real
// dingtalk-stream DWClient against the exported stand-in (@parley/dingtalk/testing): connected
// through its gateway to its stream socket, fed with robot-message and card-callback frames as
// DingTalk pushes them, acknowledged frame by frame.
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import type { DingTalkPush } from '@parley/dingtalk/testing';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { ALICE, MALLORY, startDingTalk, startProcess, T0 } from './harness.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

async function make(): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const dingtalk = await startDingTalk(clock);
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => dingtalk.close(),
    async start() {
      const bot = await startProcess(clock, dingtalk);
      let stopped = false;
      // Each frame is stamped by the stand-in's clock, which is the cases' clock (`at` is its now).
      const handed = async (push: DingTalkPush) => {
        await push.acked;
        // DingTalk's redelivery of an unacknowledged frame: the same frame and payload again.
        return { redeliver: async () => void (await push.redeliver().acked) };
      };
      return {
        bus: bot.bus,
        text: (user, text) => handed(dingtalk.message(text, { sender: USERS[user] })),
        click: (user, button) =>
          handed(dingtalk.click(button === 'confirm' ? /确认/ : /取消/, { user: USERS[user] })),
        prompts: () => dingtalk.sent.filter((send) => send.kind === 'card').length,
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

describe('the adapter conformance cases on dingtalk-stream and the DingTalk stand-in', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
