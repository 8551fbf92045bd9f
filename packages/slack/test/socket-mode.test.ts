// Bolt's real SocketModeReceiver (@slack/socket-mode) against the Socket Mode stand-in: the
// connection handshake, acknowledged envelopes, and @parley/testing's adapter conformance cases
// (the channel-confirmation seed) with events and clicks arriving as `events_api` and
// `interactive` envelopes; the app's Web API calls go to the Web API stand-in.
import { createManualClock } from '@parley/core';
import { adapterConformanceCases } from '@parley/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, blockActions, messageEvent, T0 } from './payloads.js';
import { slackSubject } from './subject.js';
import {
  APP_TOKEN,
  type SocketHarness,
  type SocketModeStandIn,
  startSocketHarness,
  startSocketMode,
} from './socket-mode.js';
import { startWebApi, type WebApiStandIn } from './web-api.js';

const make = () =>
  slackSubject(async () => {
    const socket = await startSocketMode();
    return {
      start: (clock, api) => startSocketHarness({ clock, api, socket }),
      close: () => socket.close(),
    };
  });

describe('the adapter conformance cases on Bolt’s SocketModeReceiver', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(make));
});

describe('Socket Mode through the stand-in', () => {
  let api: WebApiStandIn | undefined;
  let socket: SocketModeStandIn | undefined;
  let h: SocketHarness | undefined;
  afterEach(async () => {
    await h?.stop();
    await socket?.close();
    await api?.close();
    h = socket = api = undefined;
  });

  it('opens the connection with the app-level token and acknowledges each envelope by its id', async () => {
    const clock = createManualClock({ now: T0 });
    api = await startWebApi(clock);
    socket = await startSocketMode();
    h = await startSocketHarness({ clock, api, socket });
    expect(socket.opened()).toEqual([`Bearer ${APP_TOKEN}`]);
    const ack = await h.event(messageEvent('hello bot', { at: clock.now() + 1_000 }));
    expect(ack).toEqual({ envelope_id: expect.any(String), payload: {} });
    const inbound = await h.bus.receiveInbound();
    expect(inbound).toMatchObject({ senderId: ALICE, text: 'hello bot' });
    const click = await h.interaction(blockActions('not a parley token', { at: clock.now() }));
    expect(click.envelope_id).toEqual(expect.any(String));
    expect(click.envelope_id).not.toBe(ack.envelope_id);
  });
});
