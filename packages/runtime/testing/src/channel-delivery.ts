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
  let held: { input: FakeInbound; copies: number; done: ReturnType<typeof defer<PublishResult>> }[] = [];
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
      const indexes =
        order === 'said'
          ? list.map((_, i) => i)
          : order === 'reverse'
            ? list.map((_, i) => list.length - 1 - i)
            : [...order];
      const valid =
        indexes.length === list.length && [...indexes].sort((a, b) => a - b).every((value, i) => value === i);
      if (!valid) {
        throw new TestingError(
          'invalid_argument',
          `${name}.release: order ${JSON.stringify(order)} is not a permutation of the ${list.length} held events`,
          { details: { held: list.length } },
        );
      }
      held = [];
      holding = false;
      const results: PublishResult[] = [];
      for (const [position, index] of indexes.entries()) {
        const entry = list[index] as (typeof list)[number];
        try {
          const result = await deliverNow(
            entry.input,
            entry.copies,
            index === position ? undefined : 'reordered',
          );
          entry.done.resolve(result);
          results.push(result);
        } catch (error) {
          for (const rest of indexes.slice(position))
            (list[rest] as (typeof list)[number]).done.reject(error);
          throw error;
        }
      }
      return results;
    },
  };
}
