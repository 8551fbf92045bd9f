// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Bolt
// (HTTPReceiver, signed requests) and WebClient, against the exported Slack stand-in.
import { adapterConformanceCases } from '@parley/testing';
import { describe, it } from 'vitest';
import { startHarness } from './helpers.js';
import { slackSubject } from './subject.js';

const make = () =>
  slackSubject({
    async start(clock, api) {
      const h = await startHarness({ clock, api });
      return {
        bus: h.bus,
        event: (body, retry) => h.event(body, retry),
        interaction: h.interaction,
        stop: h.stop,
      };
    },
  });

describe('the adapter conformance cases on Bolt', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});
