import type { InboundMessage, MessageBus } from '@parley/bus';

/**
 * Takes every inbound message queued on the bus right now, without waiting for more: what the
 * agent would receive next, in order.
 *
 * Use it after driving a {@link FakeChannel} to assert what got past the interceptors (and, just
 * as important, what did not).
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createFakeChannel, drainInbound } from '@parley/testing';
 *
 * const bus = createMessageBus();
 * const channel = createFakeChannel();
 * await bus.attach(channel);
 * await channel.say('g1', 'alice', 'one');
 * await channel.say('g1', 'bob', 'two');
 * console.log((await drainInbound(bus)).map((m) => m.text)); // [ 'one', 'two' ]
 * console.log(await drainInbound(bus)); // []
 * ```
 */
export async function drainInbound(bus: MessageBus): Promise<InboundMessage[]> {
  const messages: InboundMessage[] = [];
  for (let left = bus.size.inbound; left > 0; left--) messages.push(await bus.receiveInbound());
  return messages;
}
