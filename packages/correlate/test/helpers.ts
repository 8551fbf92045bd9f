import { createManualClock, createSequentialIds, type Store } from '@parley/core';
import { createRecordingTransport, type RecordingTransport } from '@parley/testing';
import {
  type CorrelateMessage,
  type Correlator,
  type CorrelatorEvents,
  type CorrelatorOptions,
  createCorrelator,
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
