import type { Unsubscribe } from '@parley/core';
import type { RecordingTransport } from '../transport-types.js';
import { checkDelay } from './answer.js';
import { createWireFaults } from './wire-faults.js';
import { createWireLanes, type WireOptions, type WireRecord } from './wire-lanes.js';

export type { WireOptions } from './wire-lanes.js';

/** The machinery behind both: records, faults, queues and delivery; endpoints are the caller's. */
export interface Wire<TMessage, TName extends string> {
  /** The public surface, endpoints excepted (its getters read live state). */
  readonly api: Omit<RecordingTransport<TMessage, TName>, 'endpoint'>;
  send(from: TName, to: TName, message: TMessage): void;
  listen(name: TName, receiver: (message: TMessage) => unknown): Unsubscribe;
}

/** Builds the shared machinery of a recording transport or hub. */
export function createWire<TMessage, TName extends string>(
  options: WireOptions,
  label: string,
): Wire<TMessage, TName> {
  const clock = options.clock;
  const records: WireRecord<TMessage, TName>[] = [];
  const faults = createWireFaults<TMessage, TName>(label);
  const lanes = createWireLanes<TMessage, TName>(options, label);

  function send(from: TName, to: TName, message: TMessage): void {
    const fault = faults.take(from, to, message);
    const record: WireRecord<TMessage, TName> = {
      seq: records.length + 1,
      from,
      to,
      message,
      sentAt: clock?.now(),
      fault: fault?.kind,
      status: 'in_flight',
      deliveries: [],
    };
    records.push(record);
    switch (fault?.kind) {
      case 'drop':
        record.status = 'dropped';
        return;
      case 'duplicate':
        lanes.enqueue(record);
        lanes.enqueue(record);
        return;
      case 'delay':
        lanes.delay(record, fault.delayMs);
        return;
      case 'reorder':
        lanes.hold(record);
        return;
      default:
        lanes.enqueue(record);
    }
  }

  const api: Wire<TMessage, TName>['api'] = {
    get records() {
      return records;
    },
    messages: (filter = {}) =>
      records
        .filter(
          (r) =>
            (filter.from === undefined || r.from === filter.from) &&
            (filter.to === undefined || r.to === filter.to),
        )
        .map((r) => r.message),
    get inFlight() {
      return lanes.inFlight;
    },
    get waiting() {
      return lanes.waiting;
    },
    discard: () => lanes.discard(),
    drop: (fault = {}) => faults.add('drop', fault),
    duplicate: (fault = {}) => faults.add('duplicate', fault),
    delay(delayMs, fault = {}) {
      checkDelay(`${label}.delay`, delayMs, clock);
      faults.add('delay', fault, delayMs);
    },
    reorder: (fault = {}) => faults.add('reorder', fault),
    deliverNext: () => lanes.deliverNext(),
    flush: () => lanes.flush(),
  };
  return { api, send, listen: (name, receiver) => lanes.listen(name, receiver) };
}
