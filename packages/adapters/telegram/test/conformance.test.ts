// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real grammY,
// polling and webhook, against the Bot API stand-in.
import { createConfirmGate } from '@parley/confirm';
import { createManualClock } from '@parley/core';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { describe, it } from 'vitest';
import { ALICE, MALLORY, type Mode, MODES, startHarness, startStandIn, T0 } from './helpers.js';

const USERS = { requester: ALICE, other: MALLORY } as const;

interface Keyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

function subject(mode: Mode): () => Promise<AdapterConformanceSubject> {
  return async () => {
    const clock = createManualClock({ now: T0 * 1000 });
    const api = await startStandIn(clock);
    const cards = () => api.calls('sendMessage').filter((call) => call.params['reply_markup'] !== undefined);
    return {
      clock,
      createGate: (options) => createConfirmGate(options),
      close: () => api.close(),
      async start() {
        const h = await startHarness({ mode, clock, api });
        let stopped = false;
        return {
          bus: h.bus,
          async text(user, text, at) {
            const update = api.updates.message(text, { from: USERS[user], date: Math.floor(at / 1000) });
            await h.feed(update);
            return { redeliver: () => h.feed(update) }; // the same update_id again
          },
          async click(user, button, _at) {
            const keyboard = cards().at(-1)?.params['reply_markup'] as Keyboard | undefined;
            const data = keyboard?.inline_keyboard[0]?.[button === 'confirm' ? 0 : 1]?.callback_data ?? '';
            const update = api.updates.click(data, { from: USERS[user] });
            await h.feed(update);
            return { redeliver: () => h.feed(update) };
          },
          prompts: () => cards().length,
          async stop() {
            if (stopped) return;
            stopped = true;
            await h.stop();
          },
        };
      },
    };
  };
}

describe.each(MODES)('the adapter conformance cases on grammY (%s)', (mode) => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(subject(mode)));
});
