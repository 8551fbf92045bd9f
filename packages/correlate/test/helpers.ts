import { createManualClock, createSequentialIds, type Store } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  type CorrelatorEvents,
  type CorrelatorOptions,
  createCorrelator,
  planApprovalProtocol,
  type Protocol,
  shutdownProtocol,
} from '../src/index.js';

export interface Team {
  readonly clock: ReturnType<typeof createManualClock>;
  readonly wire: CorrelateMessage[];
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
  const wire: CorrelateMessage[] = [];
  const base = { clock, protocols, send: (m: CorrelateMessage) => void wire.push(m) };
  const lead = createCorrelator({
    self: 'lead',
    generateId: createSequentialIds('req_'),
    ...base,
    ...options,
  });
  const alice = createCorrelator({ self: 'alice', generateId: createSequentialIds('al_'), ...base });
  return {
    clock,
    wire,
    lead,
    alice,
    deliver() {
      const message = wire.shift();
      if (message === undefined) throw new Error('nothing on the wire');
      return (message.to === 'lead' ? lead : alice).receive(message);
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
