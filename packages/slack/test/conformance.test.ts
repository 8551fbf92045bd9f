// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Bolt
// (HTTPReceiver, signed requests) and WebClient, against the Web API stand-in.
import { adapterConformanceCases } from '@parley/testing';
import { describe, it } from 'vitest';
import { startHarness } from './helpers.js';
import { slackSubject } from './subject.js';

const make = () =>
  slackSubject(async () => ({
    async start(clock, api) {
      const h = await startHarness({ clock, api });
      return { bus: h.bus, event: (body) => h.event(body), interaction: h.interaction, stop: h.stop };
    },
    close: async () => {},
  }));

describe('the adapter conformance cases on Bolt', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
