// A wire's messages on their way: ready, held back for reordering or delayed, and their delivery.
import type { Clock, Unsubscribe } from '@parley/core';
import { TestingError } from '../errors.js';
import type { TransportDelivery, TransportRecord } from '../transport-types.js';

/** @internal What a two-party transport and a hub share. */
export interface WireOptions {
  readonly clock?: Clock | undefined;
  readonly delivery?: 'auto' | 'manual' | undefined;
  readonly maxDeliveries?: number | undefined;
}

/** @internal A sent message's record, written as it travels. */
export type WireRecord<TMessage, TName extends string> = {
  -readonly [K in keyof TransportRecord<TMessage, TName>]: TransportRecord<TMessage, TName>[K];
} & {
  deliveries: TransportDelivery[];
};

/** @internal The lanes of one wire and its receivers. */
export interface WireLanes<TMessage, TName extends string> {
  readonly inFlight: number;
  readonly waiting: TMessage[];
  /** Makes the message ready, with every held one after it, and delivers them unless delivery is manual. */
  enqueue(record: WireRecord<TMessage, TName>): void;
  /** Holds the message back until the next one is ready (or a flush). */
  hold(record: WireRecord<TMessage, TName>): void;
  /** Makes the message ready after `delayMs` on the clock. */
  delay(record: WireRecord<TMessage, TName>, delayMs: number): void;
  listen(name: TName, receiver: (message: TMessage) => unknown): Unsubscribe;
  deliverNext(): Promise<TransportRecord<TMessage, TName> | undefined>;
  flush(): Promise<number>;
  discard(): number;
}

/**
 * @internal Creates the lanes of the wire `label` names.
 *
 * @throws TestingError `not_connected` (from `deliverNext`) for a message to an endpoint without a
 * receiver; `assertion_failed` (from `flush`) past `maxDeliveries`; `invalid_argument` (from
 * `listen`) for an endpoint that has a receiver.
 */
export function createWireLanes<TMessage, TName extends string>(
  options: WireOptions,
  label: string,
): WireLanes<TMessage, TName> {
  type Record = WireRecord<TMessage, TName>;
  const clock = options.clock;
  const manual = options.delivery === 'manual';
  const maxDeliveries = options.maxDeliveries ?? 10_000;
  const ready: Record[] = [];
  const held: Record[] = [];
  let delayed = 0;
  const receivers = new Map<TName, (message: TMessage) => unknown>();
  let pumping = false;
  let scheduled = false;

  function enqueue(record: Record): void {
    ready.push(record, ...held.splice(0));
    schedule();
  }

  function schedule(): void {
    if (manual || scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      void pump();
    });
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (ready.length > 0 && receivers.has((ready[0] as Record).to)) await deliverNext();
    } finally {
      pumping = false;
    }
  }

  async function deliverNext(): Promise<TransportRecord<TMessage, TName> | undefined> {
    const record = ready[0];
    if (record === undefined) return undefined;
    const receiver = receivers.get(record.to);
    if (receiver === undefined) throw noReceiver(label, record);
    ready.shift();
    record.status = 'delivered';
    const at = clock?.now();
    try {
      record.deliveries.push({ at, result: await receiver(record.message) });
    } catch (error) {
      record.deliveries.push({ at, error });
    }
    return record;
  }

  return {
    get inFlight() {
      return ready.length + held.length + delayed;
    },
    get waiting() {
      return ready.map((r) => r.message);
    },
    enqueue,
    hold: (record) => {
      held.push(record);
    },
    delay(record, delayMs) {
      delayed++;
      clock?.setTimeout(() => {
        delayed--;
        enqueue(record);
      }, delayMs);
    },
    listen(name, receiver) {
      if (receivers.has(name)) {
        throw new TestingError('invalid_argument', `${label}: endpoint "${name}" already has a receiver`);
      }
      receivers.set(name, receiver);
      schedule();
      return () => {
        if (receivers.get(name) === receiver) receivers.delete(name);
      };
    },
    deliverNext,
    flush: () => flushLanes(label, maxDeliveries, ready, held, deliverNext),
    discard() {
      const lost = [...ready, ...held];
      ready.length = 0;
      held.length = 0;
      for (const record of lost) if (record.deliveries.length === 0) record.status = 'dropped';
      return lost.length;
    },
  };
}

function noReceiver(label: string, record: { readonly seq: number; readonly to: string }): TestingError {
  return new TestingError(
    'not_connected',
    `${label}: message #${record.seq} is for "${record.to}", which has no receiver; call endpoint("${record.to}").listen(…) first`,
    { details: { seq: record.seq, to: record.to } },
  );
}

/** Delivers until no message is ready or held, the held ones once the ready ones are gone; the count. */
async function flushLanes<TRecord>(
  label: string,
  maxDeliveries: number,
  ready: TRecord[],
  held: TRecord[],
  deliverNext: () => Promise<unknown>,
): Promise<number> {
  let count = 0;
  for (;;) {
    if (ready.length === 0 && held.length > 0) ready.push(...held.splice(0));
    if (ready.length === 0) return count;
    if (++count > maxDeliveries) {
      throw new TestingError(
        'assertion_failed',
        `${label}.flush made ${maxDeliveries} deliveries and messages still wait: the endpoints keep answering each other`,
        { details: { maxDeliveries, waiting: ready.length } },
      );
    }
    await deliverNext();
  }
}
