// One chat reply through a stored flow: the session is started (its first question asked), then
// one reply is read into the step's fields, checked by the step's schema, written with
// compare-and-set, remembered by message id and answered with the next question. Parley's chat-flow
// host (over the memory store) against the same loop written by hand with no Parley piece (issue 36).
import { createMemoryStore } from '@parley/core';
import { defineFlow } from '@parley/fsm';
import { createChatFlowHost, createFlowSessionStore } from '@parley/chat-flow';
import { z } from 'zod';
import { suite } from '../lib.js';

const flow = defineFlow({
  id: 'refund',
  version: 1,
  steps: [
    { name: 'order', prompt: 'Which order?', fields: z.object({ order: z.string().regex(/^#\d+$/) }) },
    { name: 'reason', prompt: 'Why?', fields: z.object({ reason: z.string().min(1) }) },
  ],
});

/**
 * The host: per-session order (one reply at a time), the message id kept in the stored record (a
 * redelivery is refused, after a restart too), the answer written with compare-and-set, events,
 * and the next question asked.
 */
function parleyCase(): () => Promise<unknown> {
  const store = createMemoryStore();
  const asked: string[] = [];
  const host = createChatFlowHost({
    sessions: createFlowSessionStore(flow, { store }),
    read: (text) => ({ order: text }),
    ask: (prompt) => void asked.push(prompt),
  });
  let n = 0;
  return async () => {
    const id = `chat_${n++}`;
    await host.start(id, {});
    const result = await host.reply(id, '#1042', { messageId: `m${n}` });
    asked.length = 0;
    return result.ok;
  };
}

/** A compare-and-set store written by hand: a `Map` of JSON texts (copied in and out) with a version each. */
function casStore(): {
  get(key: string): Promise<{ value: unknown; version: number } | undefined>;
  compareAndSet(key: string, expected: number | null, value: unknown): Promise<boolean>;
} {
  const data = new Map<string, { json: string; version: number }>();
  let versions = 0;
  return {
    async get(key) {
      const slot = data.get(key);
      return slot === undefined ? undefined : { value: JSON.parse(slot.json), version: slot.version };
    },
    async compareAndSet(key, expected, value) {
      if ((data.get(key)?.version ?? null) !== expected) return false;
      data.set(key, { json: JSON.stringify(value), version: ++versions });
      return true;
    },
  };
}

/** The same two steps by hand: a prompt and a zod schema each. */
const steps = [
  { name: 'order', prompt: 'Which order?', fields: z.object({ order: z.string().regex(/^#\d+$/) }) },
  { name: 'reason', prompt: 'Why?', fields: z.object({ reason: z.string().min(1) }) },
] as const;

/**
 * By hand, with no Parley piece: a promise chain per session (one reply at a time), the session
 * record `{ step, data, seen }` in a hand-written compare-and-set store (JSON copied in and out,
 * as the memory store does), the reply's fields checked by the step's zod schema, a redelivered
 * message id refused, the answer written with compare-and-set on the version read, the next prompt
 * asked. What it leaves out, and the host does: events, bounds on open sessions and remembered ids,
 * leases and fencing, effect claims, drafts and retries, strict checks of the stored record on
 * read, the flow's exit conditions and failure policies, and the record's deadline.
 */
function handCase(): () => Promise<unknown> {
  const store = casStore();
  const asked: string[] = [];
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(id) ?? Promise.resolve()).then(work);
    queues.set(id, next);
    return next.finally(() => {
      if (queues.get(id) === next) queues.delete(id);
    });
  };
  type Session = { step: number; data: Record<string, unknown>; seen: string[] };
  const start = (id: string): Promise<void> =>
    serial(id, async () => {
      const session: Session = { step: 0, data: {}, seen: [] };
      if (!(await store.compareAndSet(id, null, session))) return;
      asked.push(steps[0].prompt);
    });
  const reply = (id: string, text: string, messageId: string): Promise<boolean> =>
    serial(id, async () => {
      const entry = await store.get(id);
      if (entry === undefined) return false;
      const session = entry.value as Session;
      if (session.seen.includes(messageId)) return false;
      const step = steps[session.step];
      if (step === undefined) return false;
      const checked = step.fields.safeParse({ order: text });
      if (!checked.success) return false;
      const next: Session = {
        step: session.step + 1,
        data: { ...session.data, ...checked.data },
        seen: [...session.seen, messageId].slice(-32),
      };
      if (!(await store.compareAndSet(id, entry.version, next))) return false;
      asked.push(steps[next.step]?.prompt ?? '');
      return true;
    });
  let n = 0;
  return async () => {
    const id = `chat_${n++}`;
    await start(id);
    const ok = await reply(id, '#1042', `m${n}`);
    asked.length = 0;
    return ok;
  };
}

suite('fsm: one chat reply through a stored flow (start, reply, next question)', {
  cases: {
    'parley createChatFlowHost': parleyCase,
    'hand-written queue + schema + CAS store': handCase,
  },
  goals: [
    {
      case: 'parley createChatFlowHost',
      vs: 'hand-written queue + schema + CAS store',
      slowerByAtMost: 2.5,
    },
  ],
});
