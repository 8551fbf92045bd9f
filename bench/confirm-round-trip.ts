// The embedded confirmation round trip, shared by the confirm suite and the Restate comparison.
import { type ChannelAdapter, createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore } from '@parley/core';

/** An adapter that accepts every send, so outbound messages do not pile up in the bus queue. */
export const sink: ChannelAdapter = { channel: 'feishu', send: async () => {} };

/**
 * A full round trip on one bus: request → prompt published → reply "确认" published inbound and
 * intercepted → decision. The gate also digests the action (SHA-256), persists the pending
 * record, records the decision (compare-and-set) and removes the record in its memory store.
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
  return () =>
    gate.request({
      sessionKey: `feishu:c${n++ % 1000}`,
      action: { name: 'drop', args: { t: 'x' } },
      summary: 'DROP x',
      requester: 'ou_a',
    });
}
