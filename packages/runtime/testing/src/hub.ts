import { TestingError } from './errors.js';
import { createWire } from './internal/wire.js';
import type { RecordingTransport, RecordingTransportOptions, TransportEndpoint } from './transport-types.js';

/**
 * Options for {@link createRecordingHub}: the named endpoints, and how to find a message's
 * recipient; delivery, clock and limits as for a two-party transport.
 *
 * @example
 * ```ts
 * import type { RecordingHubOptions } from '@parley/testing';
 *
 * const options: RecordingHubOptions<{ to: string; text: string }, 'lead' | 'alice' | 'bob'> = {
 *   endpoints: ['lead', 'alice', 'bob'],
 *   route: (message) => message.to,
 * };
 * ```
 */
export interface RecordingHubOptions<TMessage, TName extends string>
  extends Omit<RecordingTransportOptions<TName>, 'endpoints'> {
  /** Two or more distinct endpoint names. */
  readonly endpoints: readonly TName[];
  /**
   * Names a message's recipient, so `endpoint.send(message)` works with one argument, as a
   * correlator's `send` expects (e.g. `(message) => message.to`). Without it, use `sendTo`.
   */
  readonly route?: (message: TMessage) => string;
}

/**
 * One named endpoint of a hub: `send` routes by the hub's `route`, `sendTo` names the recipient.
 *
 * @example
 * ```ts
 * import { createRecordingHub, type HubEndpoint } from '@parley/testing';
 *
 * const hub = createRecordingHub<string, 'lead' | 'alice' | 'bob'>({ endpoints: ['lead', 'alice', 'bob'] });
 * const lead: HubEndpoint<string, 'lead' | 'alice' | 'bob'> = hub.endpoint('lead');
 * lead.sendTo('bob', 'hello bob');
 * ```
 */
export interface HubEndpoint<TMessage, TName extends string = string>
  extends TransportEndpoint<TMessage, TName> {
  /**
   * Hands a message for `to` to the hub; synchronous.
   * @throws TestingError `invalid_argument` when `to` is not one of the hub's endpoints.
   */
  sendTo(to: TName, message: TMessage): void;
}

/**
 * A recording transport with any number of named endpoints, for protocols with a lead and several
 * teammates: the same records, faults (filter them `from` and `to`), delivery and flushing as
 * {@link RecordingTransport}.
 *
 * @example
 * ```ts
 * import { createRecordingHub, type RecordingHub } from '@parley/testing';
 *
 * const hub: RecordingHub<string, 'lead' | 'alice' | 'bob'> = createRecordingHub({ endpoints: ['lead', 'alice', 'bob'] });
 * console.log(hub.names); // [ 'lead', 'alice', 'bob' ]
 * ```
 */
export interface RecordingHub<TMessage, TName extends string = string>
  extends Omit<RecordingTransport<TMessage, TName>, 'endpoint'> {
  /** The endpoint names, as given. */
  readonly names: readonly TName[];
  /** @throws TestingError `invalid_argument` for a name that is not one of the endpoints. */
  endpoint(name: TName): HubEndpoint<TMessage, TName>;
}

/**
 * Creates a {@link RecordingHub}: named endpoints in one process that carry messages to the
 * recipient's receiver, record every message with its fate, and lose, duplicate, delay (on the
 * fake clock) or reorder messages on cue.
 *
 * Use it where a two-party {@link createRecordingTransport} is not enough: a team lead requesting
 * shutdowns from several teammates, a coordinator collecting opinions. Give `route` so each
 * endpoint's `send` fits a correlator's `send` option.
 *
 * @throws TestingError `invalid_argument` when fewer than two endpoints are given, or a name repeats;
 * from `send`, when there is no `route` or it names no endpoint.
 * @example
 * ```ts
 * import { createRecordingHub } from '@parley/testing';
 *
 * type Name = 'lead' | 'alice' | 'bob';
 * const hub = createRecordingHub<{ to: Name; text: string }, Name>({
 *   endpoints: ['lead', 'alice', 'bob'],
 *   route: (message) => message.to,
 * });
 * const heard: string[] = [];
 * for (const name of ['alice', 'bob'] as const) {
 *   hub.endpoint(name).listen((message) => heard.push(`${name}: ${message.text}`));
 * }
 * hub.drop({ to: 'bob' }); // bob's copy is lost
 * hub.endpoint('lead').send({ to: 'alice', text: 'shut down' });
 * hub.endpoint('lead').send({ to: 'bob', text: 'shut down' });
 * await hub.flush();
 * console.log(heard); // [ 'alice: shut down' ]
 * console.log(hub.records.map((r) => `${r.to} ${r.status}`)); // [ 'alice delivered', 'bob dropped' ]
 * ```
 */
export function createRecordingHub<TMessage, TName extends string = string>(
  options: RecordingHubOptions<TMessage, TName>,
): RecordingHub<TMessage, TName> {
  const names = Object.freeze([...(options?.endpoints ?? [])]);
  if (names.length < 2 || new Set(names).size !== names.length || names.some((n) => typeof n !== 'string')) {
    throw new TestingError('invalid_argument', 'RecordingHub needs two or more distinct endpoint names', {
      details: { endpoints: names.map(String) },
    });
  }
  const route = options.route;
  const wire = createWire<TMessage, TName>(options, 'RecordingHub');
  const endpoints = new Map<TName, HubEndpoint<TMessage, TName>>();
  const known = (name: unknown): name is TName => names.includes(name as TName);

  function sendTo(from: TName, to: unknown, message: TMessage): void {
    if (!known(to)) {
      throw new TestingError(
        'invalid_argument',
        `RecordingHub: "${from}" sent a message to "${String(to)}", which is not an endpoint (${names.join(', ')})`,
        { details: { from, to: String(to) } },
      );
    }
    wire.send(from, to, message);
  }

  return Object.assign(wire.api, {
    names,
    endpoint(name: TName): HubEndpoint<TMessage, TName> {
      if (!known(name)) {
        throw new TestingError(
          'invalid_argument',
          `RecordingHub has no endpoint "${String(name)}"; its endpoints are ${names.join(', ')}`,
          { details: { name: String(name) } },
        );
      }
      let endpoint = endpoints.get(name);
      if (endpoint === undefined) {
        endpoint = {
          name,
          send(message) {
            if (route === undefined) {
              throw new TestingError(
                'invalid_argument',
                'RecordingHub: send(message) needs the route option; use sendTo(to, message)',
              );
            }
            sendTo(name, route(message), message);
          },
          sendTo: (to, message) => sendTo(name, to, message),
          listen: (receiver) => wire.listen(name, receiver),
        };
        endpoints.set(name, endpoint);
      }
      return endpoint;
    },
  });
}
