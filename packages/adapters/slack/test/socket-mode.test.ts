// Bolt's real SocketModeReceiver (@slack/socket-mode) against the exported Slack stand-in: the
// connection handshake, acknowledged envelopes, and @parley/testing's adapter conformance cases
// (the channel-confirmation seed) with events and clicks arriving as `events_api` and
// `interactive` envelopes; the app's Web API calls go to the same stand-in.
import { createManualClock } from '@parley/core';
import { adapterConformanceCases } from '@parley/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { SlackStandIn } from '../src/testing.js';
import { ALICE, startStandIn, T0 } from './helpers.js';
import { type SocketHarness, startSocketHarness } from './socket-mode.js';
import { slackSubject } from './subject.js';

const make = () => slackSubject({ start: (clock, api) => startSocketHarness({ clock, api }) });

describe('the adapter conformance cases on Bolt’s SocketModeReceiver', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});

describe('Socket Mode through the stand-in', () => {
  let api: SlackStandIn | undefined;
  let h: SocketHarness | undefined;
  afterEach(async () => {
    await h?.stop();
    await api?.close();
    h = api = undefined;
  });

  it('opens the connection with the app-level token and delivers each envelope once acknowledged', async () => {
    const clock = createManualClock({ now: T0 });
    api = await startStandIn(clock);
    h = await startSocketHarness({ clock, api });
    expect(api.connections()).toEqual([`Bearer ${api.appToken}`]);
    expect(await h.event(api.payloads.message('hello bot', { at: clock.now() + 1_000 }))).toEqual({
      ok: true,
    });
    const inbound = await h.bus.receiveInbound();
    expect(inbound).toMatchObject({ senderId: ALICE, text: 'hello bot' });
    expect(await h.interaction(api.payloads.click('not a parley token', { at: clock.now() }))).toEqual({
      ok: true,
    });
  });
});
