// The embedded confirmation round trip, shared by the confirm suite and the Restate comparison.
import { type ChannelAdapter, createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore } from '@parley/core';

/** An adapter that accepts every send, so outbound messages do not pile up in the bus queue. */
export const sink: ChannelAdapter = { channel: 'feishu', send: async () => {} };

/**
 * A full round trip on one bus: request → prompt published → reply "确认" published inbound and
 * intercepted → decision. The gate also checks the request, digests the action (SHA-256 of its
 * canonical JSON), writes the pending record before the prompt goes out and again when its send
 * resolves (the delivery), judges the reply (deadline, who may answer, the order rule, the word),
 * records the decision (first writer wins, compare-and-set), removes the pending record — each
 * write through the durable kernel into its memory store — and emits its events.
 */
export async function gateRoundTrip(): Promise<() => Promise<unknown>> {
  const clock = createManualClock();
  const bus = createMessageBus({ clock });
  await bus.attach(sink);
  const gate = createConfirmGate({ bus, clock, store: createMemoryStore({ clock }), cards: false });
  await gate.ready;
  let n = 0;
  gate.on('prompted', ({ sessionKey }) => {
    void bus.publishInbound({
      channel: 'feishu',
      chatId: sessionKey.slice(7),
      senderId: 'ou_a',
      text: '确认',
    });
  });
  return () => gate.request(roundTripRequest(n++));
}

/** The request of the `n`-th round trip, the same for every side that times one: 1 000 sessions in turn. */
export function roundTripRequest(n: number) {
  return {
    sessionKey: `feishu:c${n % 1000}`,
    action: { name: 'drop', args: { t: 'x' } },
    summary: 'DROP x',
    requester: 'ou_a',
  };
}
