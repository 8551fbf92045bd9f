// Correlators as replicas of one party ("lead"): each with its own clock and connections, one
// Redis store prefix; "alice" answers from memory. Messages are handed over by the test.
import { createManualClock, createSequentialIds, type ManualClock } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  type CorrelatorEvents,
  createCorrelator,
  type ResponseMessage,
  shutdownProtocol,
  type TrackedRequest,
} from '@parley/correlate';
import type { RedisOptions } from 'ioredis';
import { createRedisStore, type RedisStore } from '../src/index.js';
import { type RedisServer, until } from './helpers.js';

export const START = 1_000_000;
export const TIMEOUT_MS = 30_000;

export interface LeadReplica {
  readonly name: string;
  readonly clock: ManualClock;
  readonly store: RedisStore;
  readonly correlator: Correlator;
  readonly sent: CorrelateMessage[];
  readonly settled: CorrelatorEvents['settled'][];
  readonly errors: CorrelatorEvents['error'][];
  /** Requests the `shutdown` handler (registered by protocol name) was run for, on this replica. */
  readonly handled: TrackedRequest[];
  crash(): Promise<void>;
  close(): Promise<void>;
}

export interface LeadCluster {
  start(name: string, options?: { redis?: RedisOptions }): Promise<LeadReplica>;
  /** Alice answers the request `message` (approve) and returns her response, not yet delivered. */
  answer(message: CorrelateMessage | undefined, approve?: boolean): Promise<ResponseMessage>;
  advance(ms: number): void;
  closeAll(): Promise<void>;
}

let clusters = 0;

export function leadCluster(server: RedisServer): LeadCluster {
  const prefix = `leads${++clusters}:`;
  const live = new Set<LeadReplica>();
  const aliceOut: CorrelateMessage[] = [];
  const alice = createCorrelator({
    self: 'alice',
    protocols: [shutdownProtocol],
    generateId: createSequentialIds('alice_'),
    send: (message) => void aliceOut.push(message),
    clock: createManualClock({ now: START }),
    timeoutMs: TIMEOUT_MS,
  });
  let now = START;

  return {
    async start(name, options = {}) {
      const clock = createManualClock({ now });
      const redis = server.client({ disconnectTimeout: 20, ...options.redis });
      const store = createRedisStore({ redis, prefix });
      const subscribed = new Promise((resolve) => store.on('resync', resolve));
      const sent: CorrelateMessage[] = [];
      const correlator = createCorrelator({
        self: 'lead',
        protocols: [shutdownProtocol],
        generateId: createSequentialIds(`${name}_`),
        send: (message) => void sent.push(message),
        clock,
        store,
        timeoutMs: TIMEOUT_MS,
      });
      const settled: CorrelatorEvents['settled'][] = [];
      const errors: CorrelatorEvents['error'][] = [];
      const handled: TrackedRequest[] = [];
      correlator.on('settled', (event) => settled.push(event));
      correlator.on('error', (event) => errors.push(event));
      correlator.handle(shutdownProtocol, (request) => void handled.push(request));
      await subscribed;
      const replica: LeadReplica = {
        name,
        clock,
        store,
        correlator,
        sent,
        settled,
        errors,
        handled,
        async crash() {
          live.delete(replica);
          await store.close();
          redis.disconnect();
        },
        async close() {
          live.delete(replica);
          correlator.close();
          await store.close();
        },
      };
      live.add(replica);
      return replica;
    },
    async answer(message, approve = true) {
      if (message?.kind !== 'request') throw new Error('not a request');
      await alice.receive(message);
      alice.respond(message.request_id, { approve, reason: approve ? 'idle' : 'busy' });
      await until(() => aliceOut.length > 0, 1_000, 'alice to answer');
      return aliceOut.shift() as ResponseMessage;
    },
    advance(ms) {
      now += ms;
      for (const replica of live) replica.clock.advance(ms);
    },
    async closeAll() {
      alice.close();
      await Promise.all([...live].map((replica) => replica.close()));
    },
  };
}
