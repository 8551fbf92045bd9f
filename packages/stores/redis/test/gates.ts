// Confirmation gates as replicas of one bot: each with its own clock, bus, channel, ioredis
// connections and Redis store, all on one Redis server and one application prefix.
import { createMessageBus, type MessageBus } from '@parley/bus';
import {
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  createConfirmGate,
} from '@parley/confirm';
import { createManualClock, createSequentialIds, type ManualClock } from '@parley/core';
import { createFakeChannel, createFakePlatformOrder, type FakeChannel } from '@parley/testing';
import type { RedisOptions } from 'ioredis';
import { createRedisStore, type RedisStore } from '../src/index.js';
import { type RedisServer, until } from './helpers.js';

export const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;
export const START = 1_000_000;

export interface GateReplica {
  readonly name: string;
  readonly clock: ManualClock;
  readonly store: RedisStore;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly gate: ConfirmGate;
  readonly decided: ConfirmDecision[];
  readonly errors: unknown[];
  readonly refused: ConfirmEvents['refused'][];
  /** Asks in chat `chatId` for `requester` (alice) and waits until the prompt went out. */
  ask(chatId?: string): Promise<{ id: string; decision: Promise<ConfirmDecision> }>;
  /** Waits until the pending record of `id` is in the store (confirm's default key layout). */
  persisted(id: string): Promise<void>;
  /** A reply typed in `chatId` (by alice unless said otherwise), delivered to this replica. */
  say(chatId: string, text: string, extra?: { eventId?: string; senderId?: string }): Promise<string>;
  /** Texts this replica sent to `chatId`. */
  sent(chatId: string): string[];
  /** Simulates a crash: the gate is never closed, its connections are dropped. */
  crash(): Promise<void>;
  /** Stops gracefully. */
  close(): Promise<void>;
}

export interface ReplicaOptions {
  readonly gate?: Partial<ConfirmGateOptions>;
  readonly redis?: RedisOptions;
  /** Clock start, the cluster's time unless given (to model skew). */
  readonly now?: number;
}

/** The replicas of one bot on one prefix; `advance` moves every live replica's clock. */
export interface GateCluster {
  readonly prefix: string;
  readonly now: () => number;
  start(name: string, options?: ReplicaOptions): Promise<GateReplica>;
  advance(ms: number): void;
  /** Waits until `replica` follows (by its index entry) or holds confirmation `id`. */
  follows(replica: GateReplica, id: string): Promise<void>;
  closeAll(): Promise<void>;
}

let clusters = 0;

export function gateCluster(server: RedisServer, shared: Partial<ConfirmGateOptions> = {}): GateCluster {
  const prefix = `gates${++clusters}:`;
  const live = new Set<GateReplica>();
  let now = START;
  const platform = createFakePlatformOrder(); // every replica talks to the same chat platform

  return {
    prefix,
    now: () => now,
    async start(name, options = {}) {
      const clock = createManualClock({ now: options.now ?? now });
      const redis = server.client({ disconnectTimeout: 20, ...options.redis });
      const store = createRedisStore({ redis, prefix });
      const subscribed = new Promise((resolve) => store.on('resync', resolve));
      const bus = createMessageBus({ clock });
      const channel = createFakeChannel({ channel: 'feishu', clock, order: platform });
      await bus.attach(channel);
      const gate = createConfirmGate({
        bus,
        clock,
        store,
        secret: 'fleet-secret',
        generateId: createSequentialIds(`${name}_`),
        replicaId: name.replace(/[0-9]+$/, ''), // a2 is replica a, restarted
        ...shared,
        ...options.gate,
      });
      const decided: ConfirmDecision[] = [];
      const errors: unknown[] = [];
      const refused: ConfirmEvents['refused'][] = [];
      gate.on('decided', ({ decision }) => decided.push(decision));
      gate.on('error', ({ error }) => errors.push(error));
      gate.on('refused', (event) => refused.push(event));
      await gate.ready;
      await subscribed;
      const replica: GateReplica = {
        name,
        clock,
        store,
        bus,
        channel,
        gate,
        decided,
        errors,
        refused,
        async persisted(id) {
          await until(
            async () => (await store.getEntry(`confirm:pending:${id}`)) !== undefined,
            20_000,
            `${id} to be written`,
          );
        },
        async ask(chatId = 'g1') {
          const prompted = new Promise<string>((resolve) => {
            const off = gate.on('prompted', (event) => {
              if (event.sessionKey !== `feishu:${chatId}`) return; // another ask's prompt
              off();
              resolve(event.id);
            });
          });
          const decision = gate.request({
            sessionKey: `feishu:${chatId}`,
            action: ACTION,
            summary: ACTION.args.sql,
            requester: 'alice',
          });
          const id = await Promise.race([prompted, decision.then((d) => d.id)]);
          return { id, decision };
        },
        async say(chatId, text, extra = {}) {
          const { senderId = 'alice', ...rest } = extra;
          const result = await channel.say(chatId, senderId, text, rest);
          return result.status;
        },
        sent: (chatId) => channel.outbox({ chatId }).map((message) => message.text),
        async crash() {
          live.delete(replica);
          await store.close(); // drops the subscriber connection
          redis.disconnect();
        },
        async close() {
          live.delete(replica);
          await gate.close();
          await store.close();
        },
      };
      live.add(replica);
      return replica;
    },
    advance(ms) {
      now += ms;
      for (const replica of live) replica.clock.advance(ms);
    },
    async follows(replica, id) {
      await until(
        () =>
          replica.gate.pending().some((p) => p.id === id) || replica.gate.followed().some((f) => f.id === id),
        20_000,
        `${replica.name} to follow ${id}`,
      );
    },
    async closeAll() {
      await Promise.all([...live].map((replica) => replica.close()));
    },
  };
}
