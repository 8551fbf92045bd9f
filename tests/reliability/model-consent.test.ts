import { fc, test } from '@fast-check/vitest';
import {
  type ChannelAdapter,
  createMessageBus,
  type DeliverInbound,
  type MessageBus,
  type OutboundMessage,
  type SendReceipt,
} from '@parley/bus';
import { type ConfirmGate, createConfirmGate } from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import { describe, expect } from 'vitest';
import { cite } from './catalogue.js';
import { FULL, runs } from './config.js';

// Property test of exact consent (issue 18) on a hostile channel: sends that hang, resolve out of
// order or fail; replies that arrive late (written earlier than they arrive), twice (redelivered
// with the same event id) or while a prompt is in flight; restarts that abandon sends mid-flight.
// Whatever happens, no confirmation is ever `confirmed` by a reply the platform placed before (or
// level with) its prompt, or written at or after its deadline, and no reply is held forever. The
// platform orders messages by create time in ms, on the replies and on the prompts' receipts.

const TIMEOUT_MS = 60_000;
const CHATS = ['g1', 'g2'] as const;
type Chat = (typeof CHATS)[number];
const TEXTS = ['确认', '确认', '取消', 'hmm'] as const;

interface Reply {
  readonly chat: Chat;
  readonly text: string;
  readonly createdAt: number;
  readonly eventId: string;
}

interface World {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly ids: () => string;
  gate: ConfirmGate;
  bus: MessageBus;
  deliver: DeliverInbound;
  /** Sends of the live gate not yet resolved, in the order they were made. */
  held: { message: OutboundMessage; resolve: () => void; reject: (error: unknown) => void }[];
  /** When the prompt of request #n reached the platform (its send resolved). */
  readonly delivered: Map<number, number>;
  /** Where the platform placed the prompt of request #n in the chat's order: the ms its send began. */
  readonly placed: Map<number, number>;
  readonly replies: Reply[];
  /** Every inbound publish, and whether it has settled. */
  readonly publishes: { done: boolean }[];
  asks: number;
  events: number;
}

async function open(
  world: Omit<World, 'gate' | 'bus' | 'deliver' | 'held'>,
): Promise<Pick<World, 'gate' | 'bus' | 'deliver' | 'held'>> {
  const held: World['held'] = [];
  let deliver: DeliverInbound | undefined;
  const adapter: ChannelAdapter = {
    channel: 'tg',
    connect: (next) => {
      deliver = next;
    },
    send: (message) => {
      // The platform orders a chat's messages by create time in ms (like Feishu; a tie does not count).
      const placedAt = world.clock.now();
      const n = /op #(\d+)/.exec(message.text)?.[1];
      if (n !== undefined && !world.placed.has(Number(n))) world.placed.set(Number(n), placedAt);
      return new Promise<SendReceipt>((resolve, reject) => {
        held.push({
          message,
          resolve: () => {
            if (n !== undefined && !world.delivered.has(Number(n)))
              world.delivered.set(Number(n), world.clock.now());
            resolve({ order: { scope: message.chatId, position: [placedAt] } });
          },
          reject,
        });
      });
    },
  };
  const bus = createMessageBus({ clock: world.clock });
  await bus.attach(adapter);
  const gate = createConfirmGate({
    bus,
    clock: world.clock,
    store: world.store,
    generateId: world.ids,
    timeoutMs: TIMEOUT_MS,
    cards: false,
    resume: { op: () => {} }, // restored confirmations can be confirmed after a restart
  });
  await gate.ready;
  return { gate, bus, deliver: deliver as DeliverInbound, held };
}

async function settleDown(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

type Op =
  | { readonly kind: 'ask'; readonly chat: Chat }
  | { readonly kind: 'deliver' | 'fail'; readonly index: number }
  | { readonly kind: 'say'; readonly chat: Chat; readonly text: string; readonly lagMs: number }
  | { readonly kind: 'redeliver'; readonly index: number }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'restart' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('ask' as const), chat: fc.constantFrom(...CHATS) }),
  fc.record({
    kind: fc.constantFrom('deliver' as const, 'deliver' as const, 'fail' as const),
    index: fc.nat(4),
  }),
  fc.record({
    kind: fc.constant('say' as const),
    chat: fc.constantFrom(...CHATS),
    text: fc.constantFrom(...TEXTS),
    lagMs: fc.constantFrom(0, 0, 1, 400, 1_500),
  }),
  fc.record({ kind: fc.constant('redeliver' as const), index: fc.nat(10) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 300, 1_000, 20_000, 61_000) }),
  fc.constant({ kind: 'restart' as const }),
);

function publish(world: World, reply: Reply): void {
  const entry = { done: false };
  world.publishes.push(entry);
  void world
    .deliver({
      chatId: reply.chat,
      senderId: 'alice',
      text: reply.text,
      eventId: reply.eventId,
      createdAt: reply.createdAt,
      order: { scope: reply.chat, position: [reply.createdAt] },
    })
    .finally(() => {
      entry.done = true;
    });
}

async function step(world: World, next: Op): Promise<void> {
  switch (next.kind) {
    case 'ask': {
      const n = ++world.asks;
      const action = { name: 'op', args: { n } };
      void world.gate
        .request({ sessionKey: `tg:${next.chat}`, action, summary: `op #${n}`, requester: 'alice' })
        .catch(() => {});
      break;
    }
    case 'deliver':
    case 'fail': {
      const [sent] = world.held.splice(next.index % Math.max(1, world.held.length), 1);
      if (next.kind === 'deliver') sent?.resolve();
      else sent?.reject(new Error('429 Too Many Requests'));
      break;
    }
    case 'say': {
      const reply = {
        chat: next.chat,
        text: next.text,
        createdAt: world.clock.now() - next.lagMs,
        eventId: `ev_${++world.events}`,
      };
      world.replies.push(reply);
      publish(world, reply);
      break;
    }
    case 'redeliver': {
      const reply = world.replies[next.index % Math.max(1, world.replies.length)];
      if (reply !== undefined) publish(world, reply);
      break;
    }
    case 'advance':
      world.clock.advance(next.ms);
      break;
    case 'restart': {
      await world.gate.close(); // its sends in flight are abandoned: a crash mid-send
      Object.assign(world, await open(world));
      break;
    }
  }
  await settleDown();
}

describe('exact consent on a slow, reordering, redelivering channel with restarts', () => {
  test.prop([fc.array(op, { maxLength: 40 })], { numRuns: runs(150) })(
    `${cite('CONSENT-20')} never confirms by a reply written before its prompt was delivered or after its deadline`,
    async (ops) => {
      const clock = createManualClock({ now: 1_000_000 });
      const base = {
        clock,
        store: createMemoryStore({ clock }),
        ids: createSequentialIds('cfm_'),
        delivered: new Map<number, number>(),
        placed: new Map<number, number>(),
        replies: [] as Reply[],
        publishes: [] as { done: boolean }[],
        asks: 0,
        events: 0,
      };
      const world: World = { ...base, ...(await open(base)) };
      for (const next of ops) await step(world, next);
      for (const sent of world.held.splice(0)) sent.resolve();
      await settleDown();
      clock.advance(TIMEOUT_MS * 12);
      await settleDown();
      expect(world.publishes.every((p) => p.done)).toBe(true); // no reply is held forever
      for await (const decision of world.gate.audit()) {
        if (decision.outcome !== 'confirmed') continue;
        const n = (decision.action.args as { n: number }).n;
        const deliveredAt = world.delivered.get(n);
        const expiresAt = decision.expiresAt ?? (decision.promptedAt as number) + TIMEOUT_MS;
        expect(deliveredAt, decision.id).toBeDefined();
        expect(decision.decidedAt).toBeLessThan(expiresAt);
        const chat = decision.sessionKey.slice('tg:'.length);
        const answers = world.replies.filter(
          (r) =>
            r.chat === chat &&
            r.text === '确认' &&
            r.createdAt > (world.placed.get(n) as number) && // placed after the prompt by the platform
            r.createdAt < expiresAt &&
            r.createdAt <= decision.decidedAt,
        );
        expect(
          answers.length,
          `${decision.id} (#${n}) confirmed with no reply the platform placed after its prompt`,
        ).toBeGreaterThan(0);
      }
      await world.gate.close();
    },
    FULL ? 1_800_000 : 60_000,
  );
});
