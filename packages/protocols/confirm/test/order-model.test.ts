import { fc } from '@fast-check/vitest';
import { comparePlatformOrder, createMessageBus, type MessageBus, type PlatformOrder } from '@parley/bus';
import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import {
  type ConfirmDecision,
  type ConfirmGate,
  createConfirmGate,
  DEFAULT_VOCABULARY_WORDS,
} from '../src/index.js';
import { ACTION, createSlowChannel, flush, type SlowChannel } from './helpers.js';

// Issue 30, the model-based property of the order rule: random interleavings of requests (queued
// in one session), replies written and delivered at once or late, to the owner or to a second
// replica, prompt sends acknowledged late, time passing, restarts of the owner, and platforms that
// order messages by sequence, by millisecond or whole-second create time, or not at all.
// Safety: no reply that reached a gate before its prompt's send began, or that the platform placed
// before (or level with) the prompt, ever confirms. Liveness: a confirm word the requester wrote
// after the prompt was delivered, placed after it, reaching the owner before the deadline, decides.

const FULL = process.env.PARLEY_SOAK === 'full'; // the switch of tests/reliability/config.ts
const TIMEOUT_MS = 60_000;
const WORDS = DEFAULT_VOCABULARY_WORDS.confirm; // one word per reply: the decision names its reply
type Platform = 'sequence' | 'ms' | 'sec' | 'none';

type Command =
  | { readonly kind: 'request' }
  | { readonly kind: 'reply'; readonly to: 'owner' | 'replica' | 'late' }
  /** Two replies in one polling batch: the second arrives before anything else runs. */
  | { readonly kind: 'batch' }
  | { readonly kind: 'deliverLate'; readonly to: 'owner' | 'replica' }
  | { readonly kind: 'ack' }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'restart' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ kind: 'request' } as const),
  fc.record({ kind: fc.constant('reply' as const), to: fc.constantFrom('owner', 'replica', 'late') }),
  fc.record({ kind: fc.constant('deliverLate' as const), to: fc.constantFrom('owner', 'replica') }),
  fc.constant({ kind: 'ack' } as const),
  fc.constant({ kind: 'batch' } as const),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 400, 999, 1_000, 30_000) }),
  fc.constant({ kind: 'restart' } as const),
);

interface Prompt {
  readonly op: number;
  readonly began: number;
  readonly order: PlatformOrder | undefined;
  acked?: { readonly tick: number; readonly at: number };
}
interface Reply {
  readonly word: string;
  readonly written: number;
  readonly order: PlatformOrder | undefined;
  arrived?: number;
}

async function play(platform: Platform, commands: readonly Command[]): Promise<void> {
  const clock = createManualClock({ now: 1_700_000_000_000 });
  const store = createMemoryStore({ clock });
  let tick = 0;
  let sequence = 0;
  const stamp = (): PlatformOrder | undefined => {
    const now = clock.now();
    if (platform === 'none') return undefined;
    const position = platform === 'sequence' ? ++sequence : platform === 'ms' ? now : Math.floor(now / 1_000);
    return { scope: 'g1', position: [position] };
  };
  const prompts = new Map<number, Prompt>(); // by op number (in the summary)
  const replies = new Map<string, Reply>(); // by word
  const late: Reply[] = [];
  const decided = new Map<string, ConfirmDecision>();
  const ops = new Map<string, number>(); // confirmation id → op number
  let ids = 0;

  async function owner(): Promise<{ gate: ConfirmGate; bus: MessageBus; slow: SlowChannel }> {
    const bus = createMessageBus({ clock });
    const slow = createSlowChannel();
    const send = slow.adapter.send.bind(slow.adapter);
    slow.adapter.send = (message) => {
      const op = /op-(\d+)/.exec(message.text)?.[1];
      if (op !== undefined && message.text.startsWith('以下操作需要确认'))
        prompts.set(Number(op), { op: Number(op), began: ++tick, order: stamp() });
      return send(message);
    };
    await bus.attach(slow.adapter);
    const gate = createConfirmGate({
      bus,
      clock,
      store,
      replicaId: 'a',
      cards: false,
      timeoutMs: TIMEOUT_MS,
      generateId: () => `a${++ids}`, // the n-th request is a<n>, across restarts
    });
    gate.on('decided', ({ decision }) => decided.set(decision.id, decision));
    await gate.ready;
    return { gate, bus, slow };
  }
  async function replica(): Promise<{ gate: ConfirmGate; channel: FakeChannel }> {
    const bus = createMessageBus({ clock });
    const channel = createFakeChannel({ channel: 'feishu', clock });
    await bus.attach(channel);
    const gate = createConfirmGate({
      bus,
      clock,
      store,
      replicaId: 'b',
      cards: false,
      generateId: createSequentialIds('b'),
    });
    gate.on('decided', ({ decision }) => decided.set(decision.id, decision));
    await gate.ready;
    return { gate, channel };
  }
  let a = await owner();
  const b = await replica();
  let op = 0;
  const deliver = async (reply: Reply, to: 'owner' | 'replica'): Promise<void> => {
    reply.arrived = ++tick;
    const extra = reply.order === undefined ? {} : { order: reply.order };
    if (to === 'replica') void b.channel.say('g1', 'alice', reply.word, extra);
    else void a.slow.say('g1', 'alice', reply.word, extra);
  };

  for (const step of commands) {
    if (step.kind === 'request') {
      if (op >= 4) continue;
      const n = ++op;
      ops.set(`a${n}`, n);
      void a.gate.request({
        sessionKey: 'feishu:g1',
        action: { ...ACTION, args: { op: n } },
        summary: `op-${n}`,
        requester: 'alice',
      });
    } else if (step.kind === 'reply') {
      const word = WORDS[replies.size];
      if (word === undefined) continue;
      const reply: Reply = { word, written: ++tick, order: stamp() };
      replies.set(word, reply);
      if (step.to === 'late') late.push(reply);
      else {
        const live = livenessTarget(reply);
        await deliver(reply, step.to);
        await flush();
        if (live !== undefined && step.to === 'owner')
          expect(
            a.gate.pending().some((p) => p.id === live),
            `reply ${word} decides ${live}`,
          ).toBe(false);
      }
    } else if (step.kind === 'batch') {
      const batch = WORDS.slice(replies.size, replies.size + 2).map((word) => ({
        word,
        written: ++tick,
        order: stamp(),
      }));
      for (const reply of batch) replies.set(reply.word, reply);
      await Promise.all(batch.map((reply) => deliver(reply, 'owner')));
    } else if (step.kind === 'deliverLate') {
      const reply = late.shift();
      if (reply !== undefined) await deliver(reply, step.to);
    } else if (step.kind === 'ack') {
      const held = a.slow.held[0];
      if (held === undefined) continue;
      const op = /op-(\d+)/.exec(held.message.text)?.[1];
      const prompt = op === undefined ? undefined : prompts.get(Number(op));
      if (prompt !== undefined && held.message.text.startsWith('以下操作需要确认'))
        prompt.acked = { tick: ++tick, at: clock.now() };
      a.slow.deliverNext(prompt?.order === undefined ? undefined : { order: prompt.order });
    } else if (step.kind === 'advance') {
      clock.advance(step.ms);
    } else {
      await a.gate.close();
      a = await owner();
    }
    await flush();
  }
  await Promise.all([a.gate.close(), b.gate.close()]);

  /** The owner's delivered confirmation a reply written now would answer, if liveness applies. */
  function livenessTarget(reply: Reply): string | undefined {
    const active = a.gate.pending().find((p) => p.state === 'prompted' && p.delivered);
    const n = active === undefined ? undefined : ops.get(active.id);
    const prompt = n === undefined ? undefined : prompts.get(n);
    if (active === undefined || prompt?.acked === undefined || a.slow.held.length > 0) return undefined;
    if (clock.now() >= prompt.acked.at + TIMEOUT_MS) return undefined;
    const compared = comparePlatformOrder(reply.order, prompt.order);
    return compared === 'before' || compared === 'same' ? undefined : active.id;
  }

  // Safety, over every decision any gate recorded.
  for (const decision of decided.values()) {
    if (decision.outcome !== 'confirmed') continue;
    expect(decision.reason).toBe('reply');
    expect(decision.decidedBy).toBe('alice');
    const reply = replies.get(decision.reply as string) as Reply;
    const prompt = prompts.get(ops.get(decision.id) as number) as Prompt;
    expect(reply.arrived, `${reply.word} reached a gate after its prompt's send began`).toBeGreaterThan(
      prompt.began,
    );
    if (reply.order !== undefined && prompt.order !== undefined)
      expect(comparePlatformOrder(reply.order, prompt.order), `${reply.word} placed after the prompt`).toBe(
        'after',
      );
  }
}

describe('the order rule, model-based', () => {
  it('never confirms by an answer that reached a gate before its prompt was sent, and decides every timely answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Platform>('sequence', 'ms', 'sec', 'none'),
        fc.array(command, { minLength: 1, maxLength: 30 }),
        (platform, commands) => play(platform, commands),
      ),
      { numRuns: FULL ? 5_000 : 150, seed: 20_261_129 },
    );
  });
});
