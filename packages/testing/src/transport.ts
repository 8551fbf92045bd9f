import { TestingError } from './errors.js';
import { checkDelay } from './internal/answer.js';
import type {
  FaultOptions,
  RecordingTransport,
  RecordingTransportOptions,
  TransportDelivery,
  TransportEndpoint,
  TransportFault,
  TransportRecord,
} from './transport-types.js';

/**
 * Creates a {@link RecordingTransport}: two endpoints in one process that carry messages to each
 * other's receiver, record every message with its fate, and lose, duplicate, delay (on the fake
 * clock) or reorder messages on cue.
 *
 * Use it between two correlators (`send: wire.endpoint('lead').send`) or two agents exchanging
 * envelopes, to prove that a late, duplicate or lost message is refused as data and never
 * settles anything twice.
 *
 * @throws TestingError `invalid_argument` when the two endpoint names are equal.
 * @example
 * ```ts
 * import { createCorrelator, shutdownProtocol, type CorrelateMessage } from '@parley/correlate';
 * import { createFakeClock, createRecordingTransport } from '@parley/testing';
 *
 * const clock = createFakeClock();
 * const wire = createRecordingTransport<CorrelateMessage, 'lead' | 'alice'>({ endpoints: ['lead', 'alice'], clock });
 * const common = { clock, protocols: [shutdownProtocol] };
 * const lead = createCorrelator({ ...common, self: 'lead', send: wire.endpoint('lead').send });
 * const alice = createCorrelator({ ...common, self: 'alice', send: wire.endpoint('alice').send });
 * wire.endpoint('lead').listen((message) => lead.receive(message));
 * wire.endpoint('alice').listen((message) => alice.receive(message));
 * alice.on('request', ({ request }) => {
 *   alice.respond(request.id, { approve: true });
 * });
 *
 * wire.duplicate({ from: 'alice' }); // the answer arrives twice
 * const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
 * await wire.flush();
 * console.log((await reply).approved); // true
 * console.log(wire.records[1]?.deliveries.map((d) => (d.result as { ok: boolean }).ok)); // [ true, false ]
 * ```
 */
export function createRecordingTransport<TMessage, TName extends string = 'a' | 'b'>(
  options: RecordingTransportOptions<TName> = {},
): RecordingTransport<TMessage, TName> {
  type Record = {
    -readonly [K in keyof TransportRecord<TMessage, TName>]: TransportRecord<TMessage, TName>[K];
  } & {
    deliveries: TransportDelivery[];
  };
  const names = (options.endpoints ?? ['a', 'b']) as readonly [TName, TName];
  if (names[0] === names[1]) {
    throw new TestingError(
      'invalid_argument',
      `RecordingTransport needs two different endpoint names, got ${names[0]} twice`,
    );
  }
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
  const endpoints = new Map<TName, TransportEndpoint<TMessage, TName>>();
  let pumping = false;
  let scheduled = false;

  function other(name: TName): TName {
    return name === names[0] ? names[1] : names[0];
  }

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

  function takeFault(from: TName, message: TMessage): (typeof faults)[number] | undefined {
    const fault = faults.find(
      (f) =>
        f.left > 0 &&
        (f.options.from === undefined || f.options.from === from) &&
        (f.options.match?.(message) ?? true),
    );
    if (fault !== undefined) fault.left--;
    return fault;
  }

  function send(from: TName, message: TMessage): void {
    const fault = takeFault(from, message);
    const record: Record = {
      seq: records.length + 1,
      from,
      to: other(from),
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
        `RecordingTransport: message #${record.seq} is for "${record.to}", which has no receiver; call endpoint("${record.to}").listen(…) first`,
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
        `RecordingTransport.${kind}: times must be a positive integer, got ${times}`,
        {
          details: { times },
        },
      );
    }
    faults.push({ kind, left: times, delayMs, options: fault });
  }

  return {
    endpoint(name) {
      if (!names.includes(name)) {
        throw new TestingError(
          'invalid_argument',
          `RecordingTransport has no endpoint "${String(name)}"; its endpoints are "${names[0]}" and "${names[1]}"`,
          { details: { name: String(name) } },
        );
      }
      let endpoint = endpoints.get(name);
      if (endpoint === undefined) {
        endpoint = {
          name,
          send: (message) => send(name, message),
          listen(receiver) {
            if (receivers.has(name)) {
              throw new TestingError(
                'invalid_argument',
                `RecordingTransport: endpoint "${name}" already has a receiver`,
              );
            }
            receivers.set(name, receiver);
            schedule();
            return () => {
              if (receivers.get(name) === receiver) receivers.delete(name);
            };
          },
        };
        endpoints.set(name, endpoint);
      }
      return endpoint;
    },
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
      checkDelay('RecordingTransport.delay', delayMs, clock);
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
            `RecordingTransport.flush made ${maxDeliveries} deliveries and messages still wait: the endpoints keep answering each other`,
            { details: { maxDeliveries, waiting: ready.length } },
          );
        }
        await deliverNext();
      }
    },
  };
}
