// The adapter conformance subject for Slack, shared by the HTTP and the Socket Mode suites: how a
// test delivers a member's message or click to a running Bolt app, whatever its receiver, through
// the exported Slack stand-in.
import type { MessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, type ManualClock } from '@parley/core';
import type { AdapterConformanceSubject } from '@parley/testing';
import type { SlackEventBody, SlackInteraction, SlackStandIn } from '../src/testing.js';
import { ALICE, MALLORY, startStandIn, T0 } from './helpers.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

/** A running Bolt app as the cases drive it; each delivery resolves once the app handled it. */
export interface SlackBot {
  readonly bus: MessageBus;
  /** An Events API body; `retry` counts Slack's redeliveries of the same event (0 for the first). */
  event(body: SlackEventBody, retry: number): Promise<unknown>;
  interaction(payload: SlackInteraction): Promise<unknown>;
  stop(): Promise<void>;
}

/** How to start an app on the stand-in. */
export interface SlackRig {
  start(clock: ManualClock, api: SlackStandIn): Promise<SlackBot>;
}

export async function slackSubject(rig: SlackRig): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const api = await startStandIn(clock);
  let seq = 0;
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => api.close(),
    async start() {
      const bot = await rig.start(clock, api);
      let stopped = false;
      return {
        bus: bot.bus,
        async text(user, text, at) {
          const event = api.payloads.message(text, { user: USERS[user], at, seq: ++seq });
          await bot.event(event, 0);
          return { redeliver: async () => void (await bot.event(event, 1)) }; // Slack's retry: the same event id
        },
        async click(user, button, at) {
          const post = api.calls('chat.postMessage').at(-1);
          const blocks = post?.params['blocks'] as { type: string; elements?: { value: string }[] }[];
          const buttons = blocks.find((block) => block.type === 'actions')?.elements ?? [];
          const chosen = buttons[button === 'confirm' ? 0 : 1]?.value ?? '';
          const payload = api.payloads.click(chosen, { user: USERS[user], at });
          await bot.interaction(payload);
          return { redeliver: async () => void (await bot.interaction(payload)) };
        },
        prompts: () =>
          api.calls('chat.postMessage').filter((call) => call.params['blocks'] !== undefined).length,
        async stop() {
          if (stopped) return;
          stopped = true;
          await bot.stop();
        },
      };
    },
  };
}
