import { createChurnMap, createEmitter, type Emitter } from '@parley/core';
import { BusError } from './errors.js';
import type { InboundMessage } from './message.js';
import type { MessageBus } from './types.js';

/** Most handlers {@link dispatchBySession} runs at once, across sessions, by default. */
export const DEFAULT_MAX_CONCURRENT_SESSIONS = 16;
/** Most messages of one session {@link dispatchBySession} holds while that session's handler runs, by default. */
export const DEFAULT_MAX_QUEUED_PER_SESSION = 32;

/**
 * Options for {@link dispatchBySession}.
 *
 * @example
 * ```ts
 * import type { DispatchBySessionOptions } from '@parley/bus';
 *
 * const options: DispatchBySessionOptions = { maxConcurrent: 4, maxQueuedPerSession: 8 };
 * ```
 */
export interface DispatchBySessionOptions {
  /**
   * Most handlers running at once, each for another session; {@link DEFAULT_MAX_CONCURRENT_SESSIONS}
   * by default. While all are busy, new messages wait in the bus's own bounded queue.
   */
  readonly maxConcurrent?: number;
  /**
   * Most messages of one session held while its handler runs; {@link DEFAULT_MAX_QUEUED_PER_SESSION}
   * by default. One more is dropped with a `dropped` event (`session_queue_full`) and never handled.
   */
  readonly maxQueuedPerSession?: number;
  /** Stops taking messages from the bus; what was taken is still handled. */
  readonly signal?: AbortSignal;
}

/**
 * The events of a {@link SessionDispatcher}: a handler that threw or rejected (`failed`), and a
 * message dropped because its session's queue was full (`dropped`).
 *
 * @example
 * ```ts
 * import type { SessionDispatchEvents } from '@parley/bus';
 *
 * const log = (event: SessionDispatchEvents['failed']): string => `${event.message.sessionKey}: ${String(event.error)}`;
 * ```
 */
export interface SessionDispatchEvents {
  failed: { readonly message: InboundMessage; readonly error: unknown };
  dropped: { readonly message: InboundMessage; readonly code: 'session_queue_full' };
}

/**
 * What {@link dispatchBySession} returns: when it is finished, what it holds, and its events.
 *
 * @example
 * ```ts
 * import { createMessageBus, dispatchBySession, type SessionDispatcher } from '@parley/bus';
 *
 * const bus = createMessageBus();
 * const dispatcher: SessionDispatcher = dispatchBySession(bus, () => {});
 * await bus.close();
 * await dispatcher.done;
 * console.log(dispatcher.running, dispatcher.queued); // 0 0
 * ```
 */
export interface SessionDispatcher {
  /** Resolves once the bus's inbound stream ended (close, or the signal) and every taken message was handled. */
  readonly done: Promise<void>;
  /** Handlers running now (one per session at most). */
  readonly running: number;
  /** Messages taken from the bus and waiting for their session's handler. */
  readonly queued: number;
  /** Subscribes to {@link SessionDispatchEvents}. */
  on: Emitter<SessionDispatchEvents>['on'];
}

/**
 * Consumes a bus's inbound messages and runs `handler` for each: one message at a time per
 * session, in arrival order, and different sessions at once, so one chat waiting for a
 * confirmation (`await gate.request(...)`) never holds up another.
 *
 * Use it instead of `for await (const message of bus.inbound()) await handle(message)`, which
 * stalls every chat while one handler waits. It is bounded: at most `maxConcurrent` handlers run,
 * and each session holds at most `maxQueuedPerSession` messages (then `dropped`); beyond that,
 * messages wait in the bus's own queue. A handler that throws or rejects is reported as `failed`
 * and its session goes on with its next message.
 *
 * @throws BusError `invalid_argument` when `handler` is not a function or a limit is not a
 * positive integer (`maxQueuedPerSession` may be 0).
 * @example
 * ```ts
 * import { createMessageBus, dispatchBySession } from '@parley/bus';
 *
 * const bus = createMessageBus();
 * const replies: string[] = [];
 * let answerA: () => void = () => {};
 * const dispatcher = dispatchBySession(bus, async (message) => {
 *   if (message.chatId === 'a') await new Promise<void>((resolve) => { answerA = resolve; }); // e.g. a confirmation
 *   replies.push(`${message.chatId}: ${message.text}`);
 * });
 * await bus.publishInbound({ channel: 'demo', chatId: 'a', senderId: 'u1', text: '/purge' });
 * await bus.publishInbound({ channel: 'demo', chatId: 'b', senderId: 'u2', text: 'hello' });
 * await new Promise((resolve) => setImmediate(resolve));
 * console.log(replies); // [ 'b: hello' ]
 * answerA();
 * await bus.close();
 * await dispatcher.done;
 * console.log(replies); // [ 'b: hello', 'a: /purge' ]
 * ```
 */
export function dispatchBySession(
  bus: MessageBus,
  handler: (message: InboundMessage) => unknown,
  options: DispatchBySessionOptions = {},
): SessionDispatcher {
  if (typeof handler !== 'function') throw invalid('handler must be a function');
  const maxConcurrent = limit(options.maxConcurrent, DEFAULT_MAX_CONCURRENT_SESSIONS, 1, 'maxConcurrent');
  const maxQueued = limit(
    options.maxQueuedPerSession,
    DEFAULT_MAX_QUEUED_PER_SESSION,
    0,
    'maxQueuedPerSession',
  );
  const events = createEmitter<SessionDispatchEvents>();
  /** Sessions with a running handler → the messages waiting behind it. */
  const sessions = createChurnMap<string, InboundMessage[]>(); // sessions come and go
  let queued = 0;
  let wake: (() => void) | undefined;
  let idle: (() => void) | undefined;

  const run = async (first: InboundMessage): Promise<void> => {
    const waiting = sessions.get(first.sessionKey) as InboundMessage[]; // set before run starts
    for (let message: InboundMessage | undefined = first; message !== undefined; message = waiting.shift()) {
      if (message !== first) queued--;
      try {
        await handler(message);
      } catch (error) {
        events.emit('failed', { message, error });
      }
    }
    sessions.delete(first.sessionKey);
    wake?.();
    if (sessions.size === 0) idle?.();
  };

  const take = (message: InboundMessage): void => {
    const waiting = sessions.get(message.sessionKey);
    if (waiting === undefined) {
      sessions.set(message.sessionKey, []);
      void run(message);
    } else if (waiting.length >= maxQueued) {
      events.emit('dropped', { message, code: 'session_queue_full' });
    } else {
      waiting.push(message);
      queued++;
    }
  };

  const loop = async (): Promise<void> => {
    const signal = options.signal;
    const inbound = bus.inbound(signal === undefined ? {} : { signal });
    for (;;) {
      while (sessions.size >= maxConcurrent) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      const next = await inbound.next();
      if (next.done === true) break;
      take(next.value);
    }
    if (sessions.size > 0) await new Promise<void>((resolve) => (idle = resolve));
  };

  return {
    done: loop(),
    get running() {
      return sessions.size;
    },
    get queued() {
      return queued;
    },
    on: events.on,
  };
}

function limit(value: number | undefined, fallback: number, min: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw invalid(`${name} must be an integer ≥ ${min}`, { [name]: value });
  }
  return value;
}

function invalid(message: string, details: Record<string, unknown> = {}): BusError {
  return new BusError('invalid_argument', message, { details });
}
