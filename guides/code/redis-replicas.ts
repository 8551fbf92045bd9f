// The "Running several replicas on Redis" guide: every replica builds the same components on its
// own connection to one Redis; a reply or a response may reach any replica, and the one waiting
// for it still gets it. `twoReplicas` takes any two Store handles on the same data, so it runs on
// Redis and, for a quick check, on one shared memory store (the same interface).
import { fileURLToPath } from 'node:url';
// #region replica
import {
  type ChannelAdapter,
  createHygieneInterceptor,
  createMessageBus,
  type MessageBus,
} from '@parley/bus';
import { type ConfirmGate, createConfirmGate } from '@parley/confirm';
import type { Clock, Store } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
} from '@parley/correlate';

export interface Replica {
  readonly bus: MessageBus;
  readonly gate: ConfirmGate;
  readonly correlator: Correlator;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  /** This replica's handle on the shared store (its own Redis connection). */
  readonly store: Store;
  /** This replica's adapter: the platform delivers each webhook call to one replica. */
  readonly adapter: ChannelAdapter;
  /** Sends correlator messages to the other agents. */
  readonly send: (message: CorrelateMessage) => void;
  /** The same on every replica: signs card buttons so any replica can check a click. */
  readonly secret: string;
  readonly clock?: Clock;
}

export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const { store, clock } = options;
  const bus = createMessageBus({ ...(clock && { clock }) });
  bus.intercept(createHygieneInterceptor());
  // Follows the confirmations other replicas prompt (Store.watch), so their replies are caught here.
  const gate = createConfirmGate({ bus, store, secret: options.secret, ...(clock && { clock }) });
  // Same `self` on every replica: they are one party to the agents they talk to.
  const correlator = createCorrelator({
    self: 'billing-bot',
    store,
    send: options.send,
    protocols: [planApprovalProtocol],
    ...(clock && { clock }),
  });
  await bus.attach(options.adapter);
  await gate.ready;
  await correlator.restore(); // take over requests a stopped replica left pending
  return {
    bus,
    gate,
    correlator,
    async close() {
      correlator.close(); // stored requests stay pending for the other replicas
      await gate.close(); // stored confirmations too
      await bus.close();
    },
  };
}
// #endregion replica

// #region redis
import { createRedisStore, type RedisStore } from '@parley/redis';
import { Redis } from 'ioredis';

/** One replica's store: its own connection, the application's prefix. */
export function connectStore(url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): {
  store: RedisStore;
  close(): Promise<void>;
} {
  const redis = new Redis(url);
  const store = createRedisStore({ redis, prefix: 'billing-bot:' });
  return {
    store,
    async close() {
      await store.close(); // its subscriber connection
      await redis.quit(); // the client is yours
    },
  };
}
// #endregion redis

// #region scenario
import { createManualClock } from '@parley/core';
import { createFakeChannel, createFakePlatformOrder } from '@parley/testing';

/**
 * Replica A asks for a confirmation and a plan approval; the user's 确认 and the reviewer's answer
 * both reach replica B. Returns what happened, in order.
 */
export async function twoReplicas(
  stores: readonly [Store, Store],
  clock: Clock = createManualClock(),
): Promise<string[]> {
  const log: string[] = [];
  const order = createFakePlatformOrder(); // one platform numbers the chat for both replicas
  const chats = [
    createFakeChannel({ channel: 'tg', clock, order }),
    createFakeChannel({ channel: 'tg', clock, order }),
  ] as const;
  let b: Replica | undefined;
  const reviewer = createCorrelator({
    self: 'reviewer',
    clock,
    protocols: [planApprovalProtocol],
    send: (message) => void b?.correlator.receive(message), // the load balancer picks replica B
  });
  const toReviewer = (message: CorrelateMessage): void => void reviewer.receive(message);
  const common = { send: toReviewer, secret: 'same-on-every-replica', clock };
  const a = await startReplica({ ...common, store: stores[0], adapter: chats[0] });
  b = await startReplica({ ...common, store: stores[1], adapter: chats[1] });
  const replicaB = b;
  replicaB.correlator.handle(planApprovalProtocol, (request) =>
    log.push(`B ran the handler: ${request.state}`),
  );

  const action = { name: 'invoices.void', args: { invoice: 'inv_77' } };
  const decision = a.gate.request({
    sessionKey: 'tg:ops',
    requester: 'alice',
    action,
    summary: 'Void invoice inv_77',
  });
  await chats[0].waitForSent('以下操作需要确认');
  // B follows A's prompt through the store: an index entry, not the record, until a reply needs it
  await until(() => replicaB.gate.followed().some((f) => f.delivered));
  const follows = replicaB.gate.followed().map((f) => `${f.sessionKey} delivered=${f.delivered}`);
  log.push(`B follows: ${follows}, holds ${replicaB.gate.pending().length}`);

  const delivered = await chats[1].say('ops', 'alice', '确认'); // the webhook call lands on B
  log.push(`reply on B: ${delivered.status}`);
  const decided = await decision; // …and A, which is waiting, gets the decision
  log.push(`A's decision: ${decided.outcome} by ${decided.decidedBy}`);
  log.push(`A authorizes: ${(await a.gate.authorize(decided, action)).ok}`);
  const again = await replicaB.gate.authorize(decided, action);
  log.push(`B authorizes again: ${again.ok ? 'ok' : again.code}`);

  reviewer.on('request', ({ request }) => void reviewer.respond(request.id, { approve: true }));
  const reply = await a.correlator.request(planApprovalProtocol, {
    to: 'reviewer',
    payload: { plan: 'Close Q4' },
  });
  log.push(`A's plan approval: ${reply.state}`);

  await a.close();
  await replicaB.close();
  reviewer.close();
  return log;
}

/** Waits for a condition other replicas make true, letting I/O run between checks (no timers). */
async function until(check: () => boolean, turns = 100_000): Promise<void> {
  for (let turn = 0; !check(); turn++) {
    if (turn === turns) throw new Error('the other replica did not catch up');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
// #endregion scenario

/** Two replicas in one process, each on its own Redis connection. */
export async function main(url?: string): Promise<string[]> {
  const connections = [connectStore(url), connectStore(url)] as const;
  try {
    return await twoReplicas([connections[0].store, connections[1].store]);
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main()) console.log(line);
}
