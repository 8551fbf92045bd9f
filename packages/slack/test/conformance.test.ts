// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Bolt
// (HTTPReceiver, signed requests) and WebClient, against the Web API stand-in.
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { describe, it } from 'vitest';
import { startHarness } from './helpers.js';
import { ALICE, blockActions, MALLORY, messageEvent, T0 } from './payloads.js';
import { startWebApi } from './web-api.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

async function make(): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const api = await startWebApi(clock);
  let seq = 0;
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => api.close(),
    async start() {
      const h = await startHarness({ clock, api });
      let stopped = false;
      return {
        bus: h.bus,
        async text(user, text, at) {
          const event = messageEvent(text, { user: USERS[user], at, seq: ++seq });
          await h.event(event);
          return { redeliver: async () => void (await h.event(event)) }; // Slack's retry: the same event id
        },
        async click(user, button, at) {
          const post = api.callsOf('chat.postMessage').at(-1);
          const blocks = post?.params['blocks'] as {
            type: string;
            elements?: { value: string; action_id: string }[];
          }[];
          const buttons = blocks.find((block) => block.type === 'actions')?.elements ?? [];
          const chosen = buttons[button === 'confirm' ? 0 : 1]?.value ?? '';
          const payload = blockActions(chosen, { user: USERS[user], at });
          await h.interaction(payload);
          return { redeliver: async () => void (await h.interaction(payload)) };
        },
        prompts: () =>
          api.callsOf('chat.postMessage').filter((call) => call.params['blocks'] !== undefined).length,
        async stop() {
          if (stopped) return;
          stopped = true;
          await h.stop();
        },
      };
    },
  };
}

describe('the adapter conformance cases on Bolt', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
