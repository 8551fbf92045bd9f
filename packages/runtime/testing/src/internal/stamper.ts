// What a fake channel puts on the events its users send: an event id, a time, a place in the chat.
import type { PlatformOrder } from '@parley/bus';
import type { FakeChannelOptions, FakeInbound } from '../channel-types.js';
import { createFakePlatformOrder, platformOrderOf } from '../platform-order.js';

/** @internal Stamps a fake channel's inbound events and gives out places in its chats' order. */
export interface Stamper {
  /** The event with a fresh `eventId` and, with a clock, a `createdAt` (its own fields win). */
  stamp(input: FakeInbound): FakeInbound;
  /** The next place in the chat's order, as `{ order }`; nothing when order is off. */
  nextPlace(chatId: string): { order?: PlatformOrder };
}

/** @internal Creates the stamper of the fake channel named `channel`. */
export function createStamper(options: FakeChannelOptions, channel: string): Stamper {
  const clock = options.clock;
  let events = 0;
  // Given, or shared with every fake channel on the same clock (one world: restarts and replicas of
  // one bot on one platform), or this channel's own.
  const places =
    typeof options.order === 'object'
      ? options.order
      : clock === undefined
        ? createFakePlatformOrder()
        : platformOrderOf(clock);
  return {
    stamp(input) {
      events++;
      return {
        eventId: `${channel}-evt-${events}`,
        ...(clock === undefined ? {} : { createdAt: clock.now() }),
        ...input,
      };
    },
    nextPlace(chatId) {
      if (options.order === false) return {};
      const scope = `${channel}:${chatId}`;
      return { order: { scope, position: [places.next(scope)] } };
    },
  };
}
