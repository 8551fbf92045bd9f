import type { Clock, Unsubscribe } from '@parley/core';

/**
 * The faults a {@link RecordingTransport} injects: lose a message, deliver it twice, deliver it
 * late (on the clock), or deliver it after the message sent next.
 *
 * @example
 * ```ts
 * import { TRANSPORT_FAULTS } from '@parley/testing';
 *
 * console.log(TRANSPORT_FAULTS); // [ 'drop', 'duplicate', 'delay', 'reorder' ]
 * ```
 */
export const TRANSPORT_FAULTS = ['drop', 'duplicate', 'delay', 'reorder'] as const;

/**
 * One of {@link TRANSPORT_FAULTS}.
 *
 * @example
 * ```ts
 * import type { TransportFault } from '@parley/testing';
 *
 * const fault: TransportFault = 'duplicate';
 * ```
 */
export type TransportFault = (typeof TRANSPORT_FAULTS)[number];

/**
 * Options for {@link createRecordingTransport}.
 *
 * @example
 * ```ts
 * import { createFakeClock, type RecordingTransportOptions } from '@parley/testing';
 *
 * const options: RecordingTransportOptions<'lead' | 'alice'> = {
 *   endpoints: ['lead', 'alice'],
 *   clock: createFakeClock(),
 *   delivery: 'manual',
 * };
 * ```
 */
export interface RecordingTransportOptions<TName extends string> {
  /** The two endpoint names; `['a', 'b']` by default. */
  readonly endpoints?: readonly [TName, TName];
  /** Needed for the `delay` fault; stamps times on the records. */
  readonly clock?: Clock;
  /**
   * `auto` (default): a message is delivered in a microtask after it is sent. `manual`: messages
   * wait until the test calls `deliverNext()` or `flush()`.
   */
  readonly delivery?: 'auto' | 'manual';
  /** `flush` stops with `assertion_failed` past this many deliveries (endpoints answering each other forever); 10 000 by default. */
  readonly maxDeliveries?: number;
}

/**
 * Which messages a fault applies to, and how many times.
 *
 * @example
 * ```ts
 * import type { FaultOptions } from '@parley/testing';
 *
 * const responses: FaultOptions<{ kind: string }, 'a' | 'b'> = { from: 'b', match: (m) => m.kind === 'response', times: 2 };
 * ```
 */
export interface FaultOptions<TMessage, TName extends string> {
  /** How many messages it applies to; 1 by default. */
  readonly times?: number;
  /** Only messages sent by this endpoint. */
  readonly from?: TName;
  /** Only messages sent to this endpoint (useful on a hub). */
  readonly to?: TName;
  /** Only messages for which this returns true. */
  readonly match?: (message: TMessage) => boolean;
}

/**
 * One delivery of a recorded message: when, and what the receiver returned or threw.
 *
 * @example
 * ```ts
 * import type { TransportDelivery } from '@parley/testing';
 *
 * const failed = (d: TransportDelivery): boolean => d.error !== undefined;
 * ```
 */
export interface TransportDelivery {
  readonly at: number | undefined;
  /** What the receiver returned (awaited), e.g. a correlator's `ReceiveResult`. */
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * Everything that happened to one sent message.
 *
 * @example
 * ```ts
 * import type { TransportRecord } from '@parley/testing';
 *
 * const lost = (records: readonly TransportRecord<unknown>[]) => records.filter((r) => r.status === 'dropped');
 * ```
 */
export interface TransportRecord<TMessage, TName extends string = string> {
  /** 1-based, in sending order. */
  readonly seq: number;
  readonly from: TName;
  readonly to: TName;
  readonly message: TMessage;
  readonly sentAt: number | undefined;
  readonly fault: TransportFault | undefined;
  readonly status: 'in_flight' | 'delivered' | 'dropped';
  readonly deliveries: readonly TransportDelivery[];
}

/**
 * One side of a {@link RecordingTransport}: `send` goes to the other side's receiver.
 *
 * @example
 * ```ts
 * import { createRecordingTransport, type TransportEndpoint } from '@parley/testing';
 *
 * const a: TransportEndpoint<string, 'a' | 'b'> = createRecordingTransport<string>().endpoint('a');
 * a.send('hello'); // never throws
 * ```
 */
export interface TransportEndpoint<TMessage, TName extends string = string> {
  readonly name: TName;
  /** Hands a message to the transport; synchronous and never throws (a correlator's `send` fits). */
  send(message: TMessage): void;
  /**
   * Sets the receiver of messages sent to this endpoint; returns a function that removes it.
   *
   * @throws TestingError `invalid_argument` when the endpoint already has a receiver.
   */
  listen(receiver: (message: TMessage) => unknown): Unsubscribe;
}

/**
 * Two endpoints in one process, with faults on cue and every message recorded; for envelopes,
 * correlators or any peer-to-peer protocol.
 *
 * @example
 * ```ts
 * import { createRecordingTransport, type RecordingTransport } from '@parley/testing';
 *
 * const wire: RecordingTransport<string> = createRecordingTransport({ delivery: 'manual' });
 * wire.endpoint('a').send('ping');
 * console.log(wire.inFlight); // 1
 * ```
 */
export interface RecordingTransport<TMessage, TName extends string = 'a' | 'b'> {
  /** @throws TestingError `invalid_argument` for a name that is not one of the two endpoints. */
  endpoint(name: TName): TransportEndpoint<TMessage, TName>;
  /** Every message sent, with its fate. */
  readonly records: readonly TransportRecord<TMessage, TName>[];
  /** The messages sent, optionally by one endpoint or to one. */
  messages(filter?: { readonly from?: TName; readonly to?: TName }): TMessage[];
  /** Messages sent but not yet delivered or dropped (waiting, delayed or held back). */
  readonly inFlight: number;
  /** The messages ready for delivery, in the order they will be delivered (not the delayed or held back). */
  readonly waiting: readonly TMessage[];
  /** Loses every message ready or held back (not the delayed ones), as a crashed link would; returns how many. */
  discard(): number;
  /** Loses the next matching message(s). */
  drop(options?: FaultOptions<TMessage, TName>): void;
  /** Delivers the next matching message(s) twice. */
  duplicate(options?: FaultOptions<TMessage, TName>): void;
  /**
   * Delivers the next matching message(s) `delayMs` late on the clock.
   *
   * @throws TestingError `clock_required` without a clock; `invalid_argument` for a bad delay.
   */
  delay(delayMs: number, options?: FaultOptions<TMessage, TName>): void;
  /** Holds the next matching message(s) back until the message sent after them has been queued. */
  reorder(options?: FaultOptions<TMessage, TName>): void;
  /**
   * Delivers the oldest waiting message; resolves with its record, or `undefined` when none waits.
   *
   * @throws TestingError (as a rejection) `not_connected` when its endpoint has no receiver.
   */
  deliverNext(): Promise<TransportRecord<TMessage, TName> | undefined>;
  /**
   * Delivers until nothing waits (answers included, and messages held back by `reorder`);
   * resolves with how many deliveries were made. Delayed messages wait for the clock.
   *
   * @throws TestingError (as a rejection) `not_connected`; `assertion_failed` past `maxDeliveries`.
   */
  flush(): Promise<number>;
}
