// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Chat SDK
// and its Discord adapter, against the Discord REST stand-in: messages forwarded from the Gateway,
// clicks as signed HTTP interactions; a restart is a new bot, adapter and bus on the same Discord.
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { describe, it } from 'vitest';
import { snowflakeAt, startDiscordApi } from './discord-api.js';
import { ALICE, MALLORY, startDiscord } from './helpers.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const USERS = { requester: ALICE, other: MALLORY } as const;

async function subject(): Promise<AdapterConformanceSubject> {
  const clock = createManualClock({ now: T0 });
  const api = await startDiscordApi(clock);
  let seq = 0;
  return {
    clock,
    createGate: (options) => createConfirmGate(options),
    close: () => api.close(),
    async start() {
      const h = await startDiscord(clock, api);
      let stopped = false;
      return {
        bus: h.bus,
        async text(user, text, at) {
          const id = snowflakeAt(at, 500 + seq++);
          await h.message(USERS[user], text, { id, at });
          return { redeliver: async () => void (await h.message(USERS[user], text, { id, at })) };
        },
        async click(user, button, _at) {
          const card = api.posted.filter((message) => (message.components?.length ?? 0) > 0).at(-1);
          const buttons = card?.components?.flatMap((row) => row.components) ?? [];
          const customId = buttons[button === 'confirm' ? 0 : 1]?.custom_id ?? '';
          const id = snowflakeAt(clock.now(), 900 + seq++);
          await h.click(USERS[user], customId, card?.id ?? '', { id });
          return {
            redeliver: async () => void (await h.click(USERS[user], customId, card?.id ?? '', { id })),
          };
        },
        prompts: () => api.posted.filter((message) => (message.components?.length ?? 0) > 0).length,
        async stop() {
          if (stopped) return;
          stopped = true;
          await h.close();
        },
      };
    },
  };
}

describe('the adapter conformance cases on the Chat SDK (Discord)', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(subject));
});
