import type { Clock, Unsubscribe } from '@parley/core';
import { TestingError } from '../errors.js';
import type {
  FaultOptions,
  RecordingTransport,
  TransportDelivery,
  TransportFault,
  TransportRecord,
} from '../transport-types.js';
import { checkDelay } from './answer.js';

/** What a two-party transport and a hub share. */
export interface WireOptions {
  readonly clock?: Clock | undefined;
  readonly delivery?: 'auto' | 'manual' | undefined;
  readonly maxDeliveries?: number | undefined;
}

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
  type Record = {
    -readonly [K in keyof TransportRecord<TMessage, TName>]: TransportRecord<TMessage, TName>[K];
  } & {
    deliveries: TransportDelivery[];
  };
  const clock = options.clock;
  const manual = options.delivery === 'manual';
  const maxDeliveries = options.maxDeliveries ?? 10_000;
  const records: Record[] = [];
  const ready: Record[] = [];
  let held: Record[] = [];
  let delayed = 0;
  const faults: {
    kind: TransportFault;
    left: number;
    delayMs: number;
    options: FaultOptions<TMessage, TName>;
  }[] = [];
  const receivers = new Map<TName, (message: TMessage) => unknown>();
  let pumping = false;
  let scheduled = false;

  function enqueue(record: Record): void {
    ready.push(record);
    if (held.length > 0) {
      ready.push(...held);
      held = [];
    }
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

  function takeFault(from: TName, to: TName, message: TMessage): (typeof faults)[number] | undefined {
    const fault = faults.find(
      (f) =>
        f.left > 0 &&
        (f.options.from === undefined || f.options.from === from) &&
        (f.options.to === undefined || f.options.to === to) &&
        (f.options.match?.(message) ?? true),
    );
    if (fault !== undefined) fault.left--;
    return fault;
  }

  function send(from: TName, to: TName, message: TMessage): void {
    const fault = takeFault(from, to, message);
    const record: Record = {
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
        enqueue(record);
        enqueue(record);
        return;
      case 'delay':
        delayed++;
        clock?.setTimeout(() => {
          delayed--;
          enqueue(record);
        }, fault.delayMs);
        return;
      case 'reorder':
        held.push(record);
        return;
      default:
        enqueue(record);
    }
  }

  async function deliverNext(): Promise<TransportRecord<TMessage, TName> | undefined> {
    const record = ready[0];
    if (record === undefined) return undefined;
    const receiver = receivers.get(record.to);
    if (receiver === undefined) {
      throw new TestingError(
        'not_connected',
        `${label}: message #${record.seq} is for "${record.to}", which has no receiver; call endpoint("${record.to}").listen(…) first`,
        { details: { seq: record.seq, to: record.to } },
      );
    }
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

  function addFault(kind: TransportFault, fault: FaultOptions<TMessage, TName>, delayMs = 0): void {
    const times = fault.times ?? 1;
    if (!Number.isInteger(times) || times < 1) {
      throw new TestingError(
        'invalid_argument',
        `${label}.${kind}: times must be a positive integer, got ${times}`,
        {
          details: { times },
        },
      );
    }
    faults.push({ kind, left: times, delayMs, options: fault });
  }

  const listen = (name: TName, receiver: (message: TMessage) => unknown): Unsubscribe => {
    if (receivers.has(name)) {
      throw new TestingError('invalid_argument', `${label}: endpoint "${name}" already has a receiver`);
    }
    receivers.set(name, receiver);
    schedule();
    return () => {
      if (receivers.get(name) === receiver) receivers.delete(name);
    };
  };

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
      return ready.length + held.length + delayed;
    },
    get waiting() {
      return ready.map((r) => r.message);
    },
    discard() {
      const lost = [...ready, ...held];
      ready.length = 0;
      held = [];
      for (const record of lost) if (record.deliveries.length === 0) record.status = 'dropped';
      return lost.length;
    },
    drop: (fault = {}) => addFault('drop', fault),
    duplicate: (fault = {}) => addFault('duplicate', fault),
    delay(delayMs, fault = {}) {
      checkDelay(`${label}.delay`, delayMs, clock);
      addFault('delay', fault, delayMs);
    },
    reorder: (fault = {}) => addFault('reorder', fault),
    deliverNext,
    async flush() {
      let count = 0;
      for (;;) {
        if (ready.length === 0 && held.length > 0) {
          ready.push(...held);
          held = [];
        }
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
    },
  };
  return { api, send, listen };
}
