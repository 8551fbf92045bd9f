import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import type { CorrelateMessage } from '@parley/correlate';
import { createTopology, type Topology } from '@parley/envelope';
import { createPeers, type Peers, type PeersOptions } from '../src/index.js';

export const START = Date.UTC(2026, 3, 10, 9, 0, 0);

export interface Net {
  readonly clock: ManualClock;
  readonly topology: Topology;
  /** Messages sent and not yet delivered (delivery is by `flush`). */
  readonly wire: CorrelateMessage[];
  /** Every message ever sent. */
  readonly sent: CorrelateMessage[];
  readonly endpoints: Map<string, Peers>;
  add(self: string, options?: Partial<PeersOptions>): Peers;
  /** Delivers everything waiting, answers included, until the wire is quiet. */
  flush(): Promise<void>;
  /** Lets `ms` pass, delivering after every step. */
  advance(ms: number): Promise<void>;
  close(): void;
}

/** Two depth-0 agents `ceo` and `secretary` (plus a spawned `intern` under ceo) on a manual clock. */
export function createNet(): Net {
  const clock = createManualClock({ now: START });
  const topology = createTopology({ clock, maxSpawnDepth: 2 });
  topology.register({ id: 'ceo' });
  topology.register({ id: 'secretary' });
  topology.register({ id: 'cfo' });
  topology.spawn({ parent: 'ceo', id: 'intern' });
  const wire: CorrelateMessage[] = [];
  const sent: CorrelateMessage[] = [];
  const endpoints = new Map<string, Peers>();
  const ids = createSequentialIds('id_');
  const net: Net = {
    clock,
    topology,
    wire,
    sent,
    endpoints,
    add(self, options = {}) {
      const peers = createPeers({
        self,
        topology,
        clock,
        generateId: ids,
        send: (m) => {
          sent.push(m);
          wire.push(m);
        },
        ...options,
      });
      endpoints.set(self, peers);
      return peers;
    },
    async flush() {
      for (let round = 0; round < 50; round++) {
        await settle();
        const m = wire.shift();
        if (m === undefined) {
          await settle();
          if (wire.length === 0) return;
          continue;
        }
        await endpoints.get(m.to)?.receive(m);
      }
    },
    async advance(ms) {
      await net.flush();
      clock.advance(ms);
      await net.flush();
    },
    close() {
      for (const peers of endpoints.values()) peers.close();
    },
  };
  return net;
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A memory store whose writes can be made to fail or lose every race. */
export function createFlakyStore(
  clock: ManualClock,
): Store & { mode: 'ok' | 'throw' | 'lose'; only: RegExp } {
  const inner = createMemoryStore({ clock });
  const store = Object.create(inner) as Store & { mode: 'ok' | 'throw' | 'lose'; only: RegExp };
  store.mode = 'ok';
  store.only = /./;
  store.getEntry = (key) =>
    store.mode === 'throw' && store.only.test(key)
      ? Promise.reject(new Error('store down'))
      : inner.getEntry(key);
  store.set = (key, value, options) =>
    store.mode === 'throw' && store.only.test(key)
      ? Promise.reject(new Error('store down'))
      : inner.set(key, value, options);
  store.compareAndSet = (key, version, value, options) =>
    store.mode === 'throw' && store.only.test(key)
      ? Promise.reject(new Error('store down'))
      : store.mode === 'lose' && store.only.test(key)
        ? Promise.resolve({ ok: false, version: 99 })
        : inner.compareAndSet(key, version, value, options);
  return store;
}
