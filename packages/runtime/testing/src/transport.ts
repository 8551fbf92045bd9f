import { TestingError } from './errors.js';
import { createWire } from './internal/wire.js';
import type { RecordingTransport, RecordingTransportOptions, TransportEndpoint } from './transport-types.js';

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
  const names = (options.endpoints ?? ['a', 'b']) as readonly [TName, TName];
  if (names[0] === names[1]) {
    throw new TestingError(
      'invalid_argument',
      `RecordingTransport needs two different endpoint names, got ${names[0]} twice`,
    );
  }
  const wire = createWire<TMessage, TName>(options, 'RecordingTransport');
  const endpoints = new Map<TName, TransportEndpoint<TMessage, TName>>();
  const other = (name: TName): TName => (name === names[0] ? names[1] : names[0]);
  return Object.assign(wire.api, {
    endpoint(name: TName): TransportEndpoint<TMessage, TName> {
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
          send: (message) => wire.send(name, other(name), message),
          listen: (receiver) => wire.listen(name, receiver),
        };
        endpoints.set(name, endpoint);
      }
      return endpoint;
    },
  });
}
