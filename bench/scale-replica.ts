// One replica of the scale-out benchmark (cases/scale.bench.ts), in a process of its own: a confirm
// gate with its own bus, its own ioredis connections and a Redis store on the shared server. It
// prompts its share of the pending confirmations, then answers them on the driver's command.
import { createMessageBus } from '@parley/bus';
import { type ConfirmDecision, createConfirmGate } from '@parley/confirm';
import type { Store } from '@parley/core';
import { createRedisStore } from '@parley/redis';
import { Redis } from 'ioredis';
import { delegating } from '../tests/support/stores.js';

/** What the driver sends: answer `n` confirmations, report the heap or what it follows, or stop. */
export type ReplicaCommand =
  | { readonly type: 'answer'; readonly n: number }
  | { readonly type: 'heap' }
  | { readonly type: 'followed' }
  | { readonly type: 'stop' };
/** What a replica answers. */
export type ReplicaReport =
  | { readonly type: 'ready'; readonly prompted: number; readonly ms: number }
  | { readonly type: 'answered'; readonly n: number }
  | {
      readonly type: 'followed';
      readonly held: number;
      readonly followed: number;
      /** The listings of the store under way. */
      readonly listing: number;
    }
  | { readonly type: 'heap'; readonly bytes: number; readonly held: number; readonly followed: number };

const port = Number(process.env.SCALE_REDIS_PORT);
const name = process.env.SCALE_REPLICA ?? 'r0';
const count = Number(process.env.SCALE_PENDING ?? 0);
const send = (report: ReplicaReport): void => void process.send?.(report);

const redis = new Redis({ host: '127.0.0.1', port });
const redisStore = createRedisStore({ redis, prefix: 'scale:' });
// The gate's listings of the store (when its watch is live, and after a reconnect) counted while
// they run, so the driver can wait until this replica has read the prefix through.
let listing = 0;
const store: Store = {
  ...delegating(redisStore),
  async *list(prefix) {
    listing++;
    try {
      yield* redisStore.list(prefix);
    } finally {
      listing--;
    }
  },
};
const bus = createMessageBus();
await bus.attach({ channel: 'feishu', send: async () => {} });
const gate = createConfirmGate({
  bus,
  store,
  cards: false,
  replicaId: name,
  maxPending: 1_000_000,
  timeoutMs: 3_600_000,
});
await gate.ready;

const chats: string[] = [];
const decisions: Promise<ConfirmDecision>[] = [];
let prompted = 0;
let wanted = 0;
let wake: (() => void) | undefined;
gate.on('prompted', () => {
  prompted++;
  if (prompted >= wanted) wake?.();
});

// Prompts in waves of 1 000, so the connection's queue and the store stay busy but bounded.
const began = performance.now();
for (let i = 0; i < count; i += 1_000) {
  wanted = Math.min(count, i + 1_000);
  const reached = new Promise<void>((resolve) => {
    wake = resolve;
  });
  for (let j = i; j < wanted; j++) {
    const chatId = `${name}_${j}`;
    chats.push(chatId);
    const decision = gate.request({
      sessionKey: `feishu:${chatId}`,
      action: { name: 'drop', args: { t: chatId } },
      summary: `DROP ${chatId}`,
      requester: 'ou_a',
    });
    decision.catch(() => {});
    decisions.push(decision);
  }
  if (prompted < wanted) await reached;
}
send({ type: 'ready', prompted, ms: performance.now() - began });

let next = 0;
process.on('message', async (command: ReplicaCommand) => {
  if (command.type === 'stop') {
    process.exit(0);
  }
  if (command.type === 'followed') {
    send({ type: 'followed', held: gate.pending().length, followed: gate.followed().length, listing });
    return;
  }
  if (command.type === 'heap') {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const held = gate.pending().length;
    send({ type: 'heap', bytes: process.memoryUsage().heapUsed, held, followed: gate.followed().length });
    return;
  }
  // One batch: `n` replies "确认", one per pending session, all in flight; done when all are decided.
  const batch: Promise<ConfirmDecision>[] = [];
  for (let k = 0; k < command.n && next < chats.length; k++, next++) {
    const chatId = chats[next] as string;
    void bus.publishInbound({ channel: 'feishu', chatId, senderId: 'ou_a', text: '确认' });
    batch.push(decisions[next] as Promise<ConfirmDecision>);
  }
  const done = await Promise.all(batch);
  if (done.some((d) => d.outcome !== 'confirmed')) throw new Error('a confirmation was not confirmed');
  send({ type: 'answered', n: done.length });
});
process.on('disconnect', () => process.exit(0));
