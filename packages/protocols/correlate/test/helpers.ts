import {
  createManualClock,
  createSequentialIds,
  type JsonValue,
  type StandardSchemaV1,
  type Store,
} from '@parley/core';
import { createRecordingTransport, type RecordingTransport } from '@parley/testing';
import {
  type CorrelateMessage,
  type Correlator,
  type CorrelatorEvents,
  type CorrelatorOptions,
  createCorrelator,
  defineProtocol,
  planApprovalProtocol,
  type Protocol,
  type ReceiveResult,
  shutdownProtocol,
} from '../src/index.js';

export interface Team {
  readonly clock: ReturnType<typeof createManualClock>;
  /** The link between the two correlators (manual delivery), recording every message. */
  readonly transport: RecordingTransport<CorrelateMessage, 'lead' | 'alice'>;
  /** The messages sent and not delivered yet, oldest first. */
  readonly wire: readonly CorrelateMessage[];
  readonly lead: Correlator;
  readonly alice: Correlator;
  /** Delivers the oldest message on the wire to its addressee. */
  deliver(): ReturnType<Correlator['receive']>;
  /** Records every event of a correlator. */
  record(correlator: Correlator): Recorded;
}

export interface Recorded {
  readonly settled: CorrelatorEvents['settled'][];
  readonly refused: CorrelatorEvents['refused'][];
  readonly request: CorrelatorEvents['request'][];
  readonly progress: CorrelatorEvents['progress'][];
  readonly error: CorrelatorEvents['error'][];
}

export function createTeam(
  options: Partial<CorrelatorOptions> & { store?: Store } = {},
  protocols: readonly Protocol[] = [shutdownProtocol, planApprovalProtocol],
): Team {
  const clock = createManualClock({ now: 1_000 });
  const transport = createRecordingTransport<CorrelateMessage, 'lead' | 'alice'>({
    endpoints: ['lead', 'alice'],
    clock,
    delivery: 'manual',
  });
  const lead = createCorrelator({
    self: 'lead',
    generateId: createSequentialIds('req_'),
    clock,
    protocols,
    send: transport.endpoint('lead').send,
    ...options,
  });
  const alice = createCorrelator({
    self: 'alice',
    generateId: createSequentialIds('al_'),
    clock,
    protocols,
    send: transport.endpoint('alice').send,
  });
  transport.endpoint('lead').listen((message) => lead.receive(message));
  transport.endpoint('alice').listen((message) => alice.receive(message));
  return {
    clock,
    transport,
    get wire() {
      return transport.waiting;
    },
    lead,
    alice,
    async deliver() {
      const record = await transport.deliverNext();
      if (record === undefined) throw new Error('nothing on the wire');
      return record.deliveries.at(-1)?.result as ReceiveResult;
    },
    record: recordEvents,
  };
}

export function recordEvents(correlator: Correlator): Recorded {
  const recorded: Recorded = { settled: [], refused: [], request: [], progress: [], error: [] };
  correlator.on('settled', (e) => recorded.settled.push(e));
  correlator.on('refused', (e) => recorded.refused.push(e));
  correlator.on('request', (e) => recorded.request.push(e));
  correlator.on('progress', (e) => recorded.progress.push(e));
  correlator.on('error', (e) => recorded.error.push(e));
  return recorded;
}

/** Lets queued promise callbacks run (store writes resolve in microtasks). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A response message from `from` to `to` for a request id. */
export function reply(
  requestId: string,
  response: unknown,
  from = 'alice',
  protocol = 'shutdown',
  to = 'lead',
): CorrelateMessage {
  return { kind: 'response', request_id: requestId, protocol, from, to, response };
}

/** An abort signal that tracks the `abort` listeners still attached to it. */
export function trackedSignal(): { controller: AbortController; live: Set<unknown> } {
  const controller = new AbortController();
  const signal = controller.signal;
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type: string, listener: never, options?: never) => {
    if (type === 'abort') live.add(listener);
    add(type, listener, options);
  };
  signal.removeEventListener = (type: string, listener: never, options?: never) => {
    if (type === 'abort') live.delete(listener);
    remove(type, listener, options);
  };
  return { controller, live };
}

export interface FaultyStore {
  readonly store: Store;
  /** While set, writes (`compareAndSet`) fail, reads (`getEntry`) fail, or change notifications are lost. */
  readonly faults: { failWrites: boolean; failReads: boolean; loseChanges: boolean };
  /** Tells the watcher it may have missed changes, as a remote store does after a reconnect. */
  reconnect(): void;
}

/** A view of `inner` whose writes, reads and change notifications fail on demand (it watches if `inner` does). */
export function faultyStore(inner: Store): FaultyStore {
  const faults = { failWrites: false, failReads: false, loseChanges: false };
  const resyncs: (() => void)[] = [];
  const down = (): Promise<never> => Promise.reject(new Error('down'));
  const watch = inner.watch;
  const store: Store = {
    ...inner,
    list: (prefix) => inner.list(prefix),
    getEntry: (key) => (faults.failReads ? down() : inner.getEntry(key)),
    compareAndSet: (...args) => (faults.failWrites ? down() : inner.compareAndSet(...args)),
    ...(watch === undefined
      ? {}
      : {
          watch(prefix, listener, options) {
            const onResync = options?.onResync;
            if (onResync !== undefined) resyncs.push(() => onResync({ prefix, reason: 'reconnected' }));
            const forward: typeof listener = (change) => {
              if (!faults.loseChanges) listener(change);
            };
            return watch(prefix, forward, options);
          },
        }),
  };
  return {
    store,
    faults,
    reconnect() {
      for (const resync of resyncs) resync();
    },
  };
}

/**
 * A correlator named `lead` that speaks the shutdown protocol, drops what it sends and runs on a
 * manual clock, unless `options` say otherwise.
 */
export function createLead(options: Partial<CorrelatorOptions> = {}): Correlator {
  return createCorrelator({
    self: 'lead',
    protocols: [shutdownProtocol],
    send: () => {},
    clock: createManualClock({ now: 1_000 }),
    ...options,
  });
}

/** The error `run` throws, or undefined. */
export function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** What `promise` rejects with, or undefined when it resolves. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The protocol `fragile`, whose request and response schemas throw `error`. */
export function fragileProtocol(error: Error): Protocol<'fragile'> {
  const throwing: StandardSchemaV1 = {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: () => {
        throw error;
      },
    },
  };
  return defineProtocol('fragile', { request: throwing, response: throwing });
}

/** The stored form of a pending plan_approval request `other` from lead to bob, as another instance wrote it. */
export function storedPlanRequest(): JsonValue {
  return {
    v: 1,
    id: 'other',
    protocol: 'plan_approval',
    from: 'lead',
    to: 'bob',
    state: 'pending',
    payload: { plan: 'p' },
    createdAt: 0,
    deadlineAt: 5_000,
    maxDeadlineAt: 9_000,
    timeoutMs: 5_000,
    human: false,
  };
}

/** `data` in the kernel envelope of a stored request (`parley.correlate.request`, format 1), as a correlator writes it. */
export function asStoredRecord(data: JsonValue): JsonValue {
  return { kind: 'parley.correlate.request', version: 1, data, lease: null, fence: 0, deadlineAt: null };
}

/** The stored request at `key`: the data of its kernel record. */
export async function storedRequestAt(store: Store, key: string): Promise<JsonValue | undefined> {
  const record = (await store.get(key)) as { data?: JsonValue } | undefined; // a kernel record
  return record?.data;
}
