import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createMessageBus,
  DEFAULT_MAX_CONCURRENT_SESSIONS,
  DEFAULT_MAX_QUEUED_PER_SESSION,
  dispatchBySession,
  type InboundMessage,
  type MessageBus,
} from '../src/index.js';

/** Lets every pending promise callback run (no timers involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A handler whose calls the test finishes one by one, recording what started and ended. */
function controlled() {
  const started: string[] = [];
  const finished: string[] = [];
  const pending = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  const handler = (message: InboundMessage): Promise<void> => {
    const label = `${message.chatId}:${message.text}`;
    started.push(label);
    return new Promise<void>((resolve, reject) => {
      pending.set(label, {
        resolve: () => {
          finished.push(label);
          resolve();
        },
        reject,
      });
    });
  };
  const finish = async (label: string): Promise<void> => {
    pending.get(label)?.resolve();
    await settle();
  };
  return { handler, started, finished, pending, finish };
}

function say(bus: MessageBus, chatId: string, text: string) {
  return bus.publishInbound({ channel: 'demo', chatId, senderId: `u_${chatId}`, text });
}

describe('dispatchBySession', () => {
  it('answers another chat while one chat’s handler waits', async () => {
    const bus = createMessageBus();
    const h = controlled();
    const dispatcher = dispatchBySession(bus, h.handler);
    await say(bus, 'a', '/purge');
    await say(bus, 'b', 'hello');
    await settle();
    expect(h.started).toEqual(['a:/purge', 'b:hello']);
    await h.finish('b:hello');
    expect(h.finished).toEqual(['b:hello']); // a is still waiting; b was answered anyway
    expect(dispatcher.running).toBe(1);
    await h.finish('a:/purge');
    await bus.close();
    await dispatcher.done;
    expect(dispatcher.running).toBe(0);
  });

  it('handles one session’s messages one at a time, in the order they arrived', async () => {
    const bus = createMessageBus();
    const h = controlled();
    const dispatcher = dispatchBySession(bus, h.handler);
    for (const text of ['1', '2', '3']) await say(bus, 'a', text);
    await settle();
    expect(h.started).toEqual(['a:1']);
    expect(dispatcher.queued).toBe(2);
    await h.finish('a:1');
    expect(h.started).toEqual(['a:1', 'a:2']);
    await h.finish('a:2');
    await h.finish('a:3');
    expect(h.finished).toEqual(['a:1', 'a:2', 'a:3']);
    expect(dispatcher.queued).toBe(0);
    await bus.close();
    await dispatcher.done;
  });

  it('runs at most maxConcurrent handlers and leaves later messages in the bus', async () => {
    const bus = createMessageBus();
    const h = controlled();
    const dispatcher = dispatchBySession(bus, h.handler, { maxConcurrent: 2 });
    for (const chat of ['a', 'b', 'c', 'd']) await say(bus, chat, 'x');
    await settle();
    expect(h.started).toEqual(['a:x', 'b:x']);
    expect(bus.size.inbound).toBe(2); // c and d wait in the bus's own bounded queue
    await h.finish('b:x');
    expect(h.started).toEqual(['a:x', 'b:x', 'c:x']);
    expect(dispatcher.running).toBe(2);
    for (const label of ['a:x', 'c:x', 'd:x']) await h.finish(label);
    await bus.close();
    await dispatcher.done;
    expect(h.finished.sort()).toEqual(['a:x', 'b:x', 'c:x', 'd:x']);
  });

  it('drops a message past maxQueuedPerSession with a dropped event, and never handles it', async () => {
    const bus = createMessageBus();
    const h = controlled();
    const dispatcher = dispatchBySession(bus, h.handler, { maxQueuedPerSession: 1 });
    const dropped: string[] = [];
    dispatcher.on('dropped', ({ message, code }) => dropped.push(`${message.text} ${code}`));
    for (const text of ['1', '2', '3']) await say(bus, 'a', text);
    await settle();
    expect(dropped).toEqual(['3 session_queue_full']);
    await h.finish('a:1');
    await h.finish('a:2');
    await bus.close();
    await dispatcher.done;
    expect(h.started).toEqual(['a:1', 'a:2']);
  });

  it('reports a handler that throws or rejects as failed, and the session goes on', async () => {
    const bus = createMessageBus();
    const seen: string[] = [];
    const dispatcher = dispatchBySession(bus, (message) => {
      seen.push(message.text);
      if (message.text === 'throw') throw new Error('sync');
      if (message.text === 'reject') return Promise.reject(new Error('async'));
      return undefined;
    });
    const failed: string[] = [];
    dispatcher.on('failed', ({ message, error }) =>
      failed.push(`${message.text}: ${(error as Error).message}`),
    );
    for (const text of ['throw', 'reject', 'ok']) await say(bus, 'a', text);
    await bus.close();
    await dispatcher.done;
    expect(seen).toEqual(['throw', 'reject', 'ok']);
    expect(failed).toEqual(['throw: sync', 'reject: async']);
  });

  it('stops taking messages when its signal aborts, and still finishes what it took', async () => {
    const bus = createMessageBus();
    const h = controlled();
    const stop = new AbortController();
    const dispatcher = dispatchBySession(bus, h.handler, { signal: stop.signal });
    await say(bus, 'a', '1');
    await say(bus, 'a', '2');
    await settle();
    stop.abort();
    await settle();
    await say(bus, 'b', 'late');
    await h.finish('a:1');
    await h.finish('a:2');
    await dispatcher.done;
    expect(h.finished).toEqual(['a:1', 'a:2']);
    expect(bus.size.inbound).toBe(1); // the late message stays in the bus for someone else
    await bus.close();
  });

  it('refuses a missing handler or a limit that is not a positive integer with invalid_argument', () => {
    const bus = createMessageBus();
    const bad = [
      () => dispatchBySession(bus, 'no' as never),
      () => dispatchBySession(bus, () => {}, { maxConcurrent: 0 }),
      () => dispatchBySession(bus, () => {}, { maxConcurrent: 1.5 }),
      () => dispatchBySession(bus, () => {}, { maxQueuedPerSession: -1 }),
    ];
    for (const make of bad) {
      try {
        make();
        expect.unreachable();
      } catch (error) {
        expect(isParleyError(error, 'invalid_argument')).toBe(true);
      }
    }
    expect([DEFAULT_MAX_CONCURRENT_SESSIONS, DEFAULT_MAX_QUEUED_PER_SESSION]).toEqual([16, 32]);
  });
});
