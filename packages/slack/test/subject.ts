// The adapter conformance subject for Slack, shared by the HTTP and the Socket Mode suites: how a
// test delivers a member's message or click to a running Bolt app, whatever its receiver.
import type { MessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, type ManualClock } from '@parley/core';
import type { AdapterConformanceSubject } from '@parley/testing';
import { ALICE, blockActions, MALLORY, messageEvent, T0 } from './payloads.js';
import { startWebApi, type WebApiStandIn } from './web-api.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

/** A running Bolt app as the cases drive it; each delivery resolves once the app handled it. */
export interface SlackBot {
  readonly bus: MessageBus;
  /** An Events API body; `retry` counts Slack's redeliveries of the same event (0 for the first). */
  event(body: object, retry: number): Promise<unknown>;
  interaction(payload: object): Promise<unknown>;
  stop(): Promise<void>;
}

/** Platform pieces besides the Web API stand-in: how to start an app, and what to stop at the end. */
export interface SlackRig {
  start(clock: ManualClock, api: WebApiStandIn): Promise<SlackBot>;
  close(): Promise<void>;
}

export async function slackSubject(rig: () => Promise<SlackRig>): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const api = await startWebApi(clock);
  const platform = await rig();
  let seq = 0;
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    async close() {
      await platform.close();
      await api.close();
    },
    async start() {
      const bot = await platform.start(clock, api);
      let stopped = false;
      return {
        bus: bot.bus,
        async text(user, text, at) {
          const event = messageEvent(text, { user: USERS[user], at, seq: ++seq });
          await bot.event(event, 0);
          return { redeliver: async () => void (await bot.event(event, 1)) }; // Slack's retry: the same event id
        },
        async click(user, button, at) {
          const post = api.callsOf('chat.postMessage').at(-1);
          const blocks = post?.params['blocks'] as { type: string; elements?: { value: string }[] }[];
          const buttons = blocks.find((block) => block.type === 'actions')?.elements ?? [];
          const chosen = buttons[button === 'confirm' ? 0 : 1]?.value ?? '';
          const payload = blockActions(chosen, { user: USERS[user], at });
          await bot.interaction(payload);
          return { redeliver: async () => void (await bot.interaction(payload)) };
        },
        prompts: () =>
          api.callsOf('chat.postMessage').filter((call) => call.params['blocks'] !== undefined).length,
        async stop() {
          if (stopped) return;
          stopped = true;
          await bot.stop();
        },
      };
    },
  };
}
