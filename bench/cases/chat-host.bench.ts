// One chat reply through a stored flow: the session is started (its first question asked), then
// one reply is read into the step's fields, submitted with compare-and-set, remembered by message id
// and answered with the next question. Parley's chat-flow host against the same loop written by hand.
import { createMemoryStore, type JsonValue } from '@parley/core';
import { defineFlow, type FlowSnapshot } from '@parley/fsm';
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

/**
 * By hand: a promise chain per session, the flow's own submit, the record (snapshot, data and the
 * seen message ids) written with compare-and-set, a redelivered id refused, the next prompt asked.
 * No events, no bounds on open sessions, no effect claims, no record checks on read.
 */
function handCase(): () => Promise<unknown> {
  const store = createMemoryStore();
  const asked: string[] = [];
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(id) ?? Promise.resolve()).then(work);
    queues.set(id, next);
    return next.finally(() => {
      if (queues.get(id) === next) queues.delete(id);
    });
  };
  type Record = { flow: FlowSnapshot; data: JsonValue; seen: string[] };
  const start = (id: string): Promise<void> =>
    serial(id, async () => {
      const snapshot = flow.start();
      await store.compareAndSet(id, null, { flow: snapshot, data: {}, seen: [] } as unknown as JsonValue);
      asked.push(flow.prompt(snapshot) ?? '');
    });
  const reply = (id: string, text: string, messageId: string): Promise<boolean> =>
    serial(id, async () => {
      const entry = await store.getEntry(id);
      const record = entry?.value as unknown as Record;
      if (record.seen.includes(messageId)) return false;
      const result = flow.submit(flow.restore(record.flow), { order: text });
      const seen = [...record.seen, messageId].slice(-32);
      const written = await store.compareAndSet(id, entry?.version ?? null, {
        flow: result.snapshot,
        data: record.data,
        seen,
      } as unknown as JsonValue);
      if (!written.ok) return false;
      asked.push(flow.prompt(result.snapshot) ?? '');
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
    'hand-written queue + submit + compareAndSet': handCase,
  },
  goals: [
    {
      case: 'parley createChatFlowHost',
      vs: 'hand-written queue + submit + compareAndSet',
      slowerByAtMost: 3,
    },
  ],
});
