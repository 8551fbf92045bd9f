import type { DeliverInbound, PublishResult } from '@parley/bus';
import type { Clock } from '@parley/core';
import type { DeliveryRecord, FakeInbound, ReleaseOrder } from './channel-types.js';
import { TestingError } from './errors.js';
import { checkDelay } from './internal/answer.js';
import { defer } from './internal/format.js';

/** The inbound side of a fake channel: delivery to the bus with duplicates, delays and held events. */
export interface DeliveryQueue {
  readonly delivered: readonly DeliveryRecord[];
  /** Events held by `hold` or waiting out a delay. */
  readonly inFlight: number;
  /** Delivers (or holds, or delays) one event, as the next fault says. */
  dispatch(input: FakeInbound): Promise<PublishResult>;
  /** Delivers at once, `copies` times, recording each with `fault`. */
  deliverNow(input: FakeInbound, copies: number, fault: DeliveryRecord['fault']): Promise<PublishResult>;
  clear(): void;
  duplicateNext(count: number): void;
  delayNext(delayMs: number, count: number): void;
  hold(): void;
  release(order: ReleaseOrder): Promise<PublishResult[]>;
}

/** An event held by `hold`: how many copies it goes as, and the caller's wait for its result. */
interface Held {
  readonly input: FakeInbound;
  readonly copies: number;
  readonly done: ReturnType<typeof defer<PublishResult>>;
}

/** Creates the delivery side of a fake channel named `name`; `target` is the bus's deliver function once attached. */
export function createDeliveryQueue(
  name: string,
  channel: string,
  clock: Clock | undefined,
  target: () => DeliverInbound | undefined,
): DeliveryQueue {
  let delivered: DeliveryRecord[] = [];
  let duplicates = 0;
  const delays: number[] = [];
  let holding = false;
  let held: Held[] = [];
  let late = 0;

  async function deliverNow(
    input: FakeInbound,
    copies: number,
    fault: DeliveryRecord['fault'],
  ): Promise<PublishResult> {
    const first = await deliverOnce(input, false, fault);
    for (let i = 1; i < copies; i++) await deliverOnce(input, true, fault);
    return first;
  }

  async function deliverOnce(
    input: FakeInbound,
    duplicate: boolean,
    fault: DeliveryRecord['fault'],
  ): Promise<PublishResult> {
    const deliverFn = target();
    if (deliverFn === undefined) {
      throw new TestingError(
        'not_connected',
        `${name} is not attached to a bus: call bus.attach(channel) before users talk`,
        { details: { channel } },
      );
    }
    const result = await deliverFn(input);
    delivered.push({ input, result, duplicate, ...(fault === undefined ? {} : { fault }) });
    return result;
  }

  return {
    get delivered() {
      return delivered;
    },
    get inFlight() {
      return held.length + late;
    },
    deliverNow,
    dispatch(input) {
      const copies = duplicates > 0 ? 2 : 1;
      if (duplicates > 0) duplicates--;
      if (holding) {
        const done = defer<PublishResult>();
        held.push({ input, copies, done });
        return done.promise;
      }
      const delayMs = delays.shift();
      if (delayMs === undefined) return deliverNow(input, copies, undefined);
      const done = defer<PublishResult>();
      late++;
      clock?.setTimeout(() => {
        late--;
        deliverNow(input, copies, 'late').then(done.resolve, done.reject);
      }, delayMs);
      return done.promise;
    },
    clear() {
      delivered = [];
    },
    duplicateNext(count) {
      duplicates = count;
    },
    delayNext(delayMs, count) {
      checkDelay(`${name}.delayNext`, delayMs, clock);
      for (let i = 0; i < count; i++) delays.push(delayMs);
    },
    hold() {
      holding = true;
    },
    async release(order) {
      const list = held;
      const indexes = releaseOrder(`${name}.release`, order, list.length);
      held = [];
      holding = false;
      return deliverHeld(list, indexes, deliverNow);
    },
  };
}

/**
 * The positions of the held events in the order they are released: as said, reversed, or a given
 * permutation.
 *
 * @throws TestingError `invalid_argument` for an order that is not a permutation of the held events.
 */
function releaseOrder(what: string, order: ReleaseOrder, count: number): readonly number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  const indexes = order === 'said' ? all : order === 'reverse' ? all.map((i) => count - 1 - i) : [...order];
  const valid =
    indexes.length === count && [...indexes].sort((a, b) => a - b).every((value, i) => value === i);
  if (!valid) {
    throw new TestingError(
      'invalid_argument',
      `${what}: order ${JSON.stringify(order)} is not a permutation of the ${count} held events`,
      { details: { held: count } },
    );
  }
  return indexes;
}

/**
 * Delivers the held events in that order, each to its own waiter; one moved from its place is
 * `reordered`. A failed delivery rejects it and every one after it, and the release.
 */
async function deliverHeld(
  list: readonly Held[],
  indexes: readonly number[],
  deliverNow: DeliveryQueue['deliverNow'],
): Promise<PublishResult[]> {
  const results: PublishResult[] = [];
  for (const [position, index] of indexes.entries()) {
    const entry = list[index] as Held;
    try {
      const result = await deliverNow(
        entry.input,
        entry.copies,
        index === position ? undefined : 'reordered',
      );
      entry.done.resolve(result);
      results.push(result);
    } catch (error) {
      for (const rest of indexes.slice(position)) (list[rest] as Held).done.reject(error);
      throw error;
    }
  }
  return results;
}
