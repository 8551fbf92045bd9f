/**
 * One platform's per-chat message numbering, shared by several fake channels that stand for
 * replicas of one bot on the same platform: whichever replica a message is said to or sent from,
 * it takes the next place in its chat, as Telegram's `message_id` does for every bot process.
 *
 * @example
 * ```ts
 * import { createFakePlatformOrder } from '@parley/testing';
 *
 * const platform = createFakePlatformOrder();
 * console.log(platform.next('tg:ops'), platform.next('tg:ops'), platform.next('tg:dev')); // 1 2 1
 * ```
 */
export interface FakePlatformOrder {
  /** Takes the next place in `scope` (a chat), counting from 1. */
  next(scope: string): number;
}

// The numbering of the fake channels that share a clock: fake channels on one clock stand for one
// world (a bot, its restarts and its replicas, talking to one platform), so they number its chats
// together. Weakly held: a clock that is gone takes its numbering with it.
const worlds = new WeakMap<object, FakePlatformOrder>();

/** @internal The numbering shared by the fake channels on `clock`. */
export function platformOrderOf(clock: object): FakePlatformOrder {
  let order = worlds.get(clock);
  if (order === undefined) {
    order = createFakePlatformOrder();
    worlds.set(clock, order);
  }
  return order;
}

/**
 * Creates a {@link FakePlatformOrder}; pass it as `order` to each `createFakeChannel` of the
 * replicas of one bot, so their messages share one order per chat.
 *
 * @example
 * ```ts
 * import { createFakeChannel, createFakePlatformOrder } from '@parley/testing';
 *
 * const order = createFakePlatformOrder();
 * const replicaA = createFakeChannel({ channel: 'tg', order });
 * const replicaB = createFakeChannel({ channel: 'tg', order });
 * console.log(replicaA.channel === replicaB.channel); // true
 * ```
 */
export function createFakePlatformOrder(): FakePlatformOrder {
  const places = new Map<string, number>();
  return {
    next(scope) {
      const position = (places.get(scope) ?? 0) + 1;
      places.set(scope, position);
      return position;
    },
  };
}
