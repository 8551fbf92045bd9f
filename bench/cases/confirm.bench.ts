import {
  createMessageBus,
  type InboundInput,
  type InboundInterceptor,
  type InboundMessage,
  type MessageBus,
} from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore, type ManualClock } from '@parley/core';
import { gateRoundTrip, sink } from '../confirm-round-trip.js';
import { suite } from '../lib.js';

const SESSIONS = 10_000;
/** The action as the gate records it (name, canonical args, SHA-256 digest). */
const ACTION = { name: 'drop', args: { t: 'x' }, digest: 'e'.repeat(64) };
const PENDING = 1_000; // sessions 0..999 have a confirmation pending; the measured ones do not

/** A bus whose `intercept` also hands the interceptor to `seen`, to time the gate's interceptor alone. */
function spyBus(clock: ManualClock, seen: InboundInterceptor[]): MessageBus {
  const bus = createMessageBus({ clock, capacity: 4096, overflow: 'drop-oldest' });
  const spy: MessageBus = Object.create(bus);
  spy.intercept = (interceptor) => {
    seen.push(interceptor);
    return bus.intercept(interceptor);
  };
  return spy;
}

/**
 * A bus with PENDING sessions waiting for an answer: held by a confirm gate (`gate`), by a
 * hand-written interceptor that looks the session up in a `Map` and takes the message when it is
 * pending (`map`), or no interceptor at all (`none`).
 */
async function loadedBus(
  kind: 'gate' | 'map' | 'none',
): Promise<{ bus: MessageBus; interceptors: InboundInterceptor[] }> {
  const clock = createManualClock();
  const interceptors: InboundInterceptor[] = [];
  const bus = spyBus(clock, interceptors);
  await bus.attach(sink);
  if (kind === 'map') {
    const pending = new Map<string, string>();
    for (let i = 0; i < PENDING; i++) pending.set(`feishu:oc_${i}`, `ou_${i}`);
    bus.intercept({
      name: 'map',
      intercept: (message) =>
        message.kind === 'message' && pending.get(message.sessionKey) === message.senderId,
    });
  }
  if (kind === 'gate') {
    const gate = createConfirmGate({ bus, clock, store: createMemoryStore({ clock }), cards: false });
    await gate.ready;
    let prompted = 0;
    const all = new Promise<void>((resolve) => {
      gate.on('prompted', () => {
        if (++prompted === PENDING) resolve();
      });
    });
    for (let i = 0; i < PENDING; i++) {
      void gate.request({
        sessionKey: `feishu:oc_${i}`,
        action: { name: 'drop' },
        summary: 'DROP',
        requester: `ou_${i}`,
      });
    }
    await all;
  }
  return { bus, interceptors };
}

function inputs(): InboundInput[] {
  const list: InboundInput[] = [];
  for (let i = PENDING; i < SESSIONS; i++)
    list.push({ channel: 'feishu', chatId: `oc_${i}`, senderId: `ou_${i}`, text: 'hello' });
  return list;
}

async function publishing(kind: 'gate' | 'map' | 'none'): Promise<() => unknown> {
  const { bus } = await loadedBus(kind);
  const list = inputs();
  let n = 0;
  return () => bus.publishInbound(list[n++ % list.length] as InboundInput);
}

suite('confirm: publishInbound, 10k sessions, nothing pending in this one', {
  cases: {
    'bus with confirm gate': () => publishing('gate'),
    'bus with Map interceptor': () => publishing('map'),
    'bus without interceptor': () => publishing('none'),
  },
  goals: [
    { case: 'bus with confirm gate', vs: 'bus with Map interceptor', slowerByAtMost: 1.15 },
    { case: 'bus with confirm gate', vs: 'bus without interceptor' },
    { case: 'bus with Map interceptor', vs: 'bus without interceptor' },
  ],
});

/** The gate's interceptor called directly on messages of sessions with nothing pending: what it adds. */
async function interceptorAlone(kind: 'gate' | 'map' | 'none'): Promise<() => unknown> {
  const { interceptors } = await loadedBus(kind);
  const intercept =
    kind === 'none'
      ? (_message: InboundMessage): boolean => false
      : (interceptors[0] as InboundInterceptor).intercept;
  // Built field by field, as the bus builds them (objects made with a spread are slower to read).
  const messages: InboundMessage[] = inputs().map((input) => ({
    channel: input.channel,
    chatId: input.chatId,
    senderId: input.senderId,
    text: input.text ?? '',
    kind: 'message',
    sessionKey: `feishu:${input.chatId}`,
    receivedAt: 0,
  }));
  let n = 0;
  return () => intercept(messages[n++ % messages.length] as InboundMessage);
}

suite('confirm: interceptor alone, 10k sessions, nothing pending in this one', {
  cases: {
    'confirm interceptor': () => interceptorAlone('gate'),
    'Map interceptor': () => interceptorAlone('map'),
    'empty interceptor': () => interceptorAlone('none'),
  },
  goals: [{ case: 'confirm interceptor', vs: 'Map interceptor' }],
});

/**
 * A hand-written store of the same shape as the memory store's writes: values copied as JSON text,
 * a version per write, an expiry time. Its methods are async, as a store behind a network would be.
 */
function bareStore(): {
  set(key: string, value: unknown, ttlMs: number): Promise<number>;
  insert(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<boolean>;
} {
  const data = new Map<string, { json: string; version: number; expiresAt: number }>();
  let version = 0;
  return {
    async set(key, value, ttlMs) {
      data.set(key, { json: JSON.stringify(value), version: ++version, expiresAt: Date.now() + ttlMs });
      return version;
    },
    async insert(key, value, ttlMs) {
      if (data.has(key)) return false;
      data.set(key, { json: JSON.stringify(value), version: ++version, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async delete(key) {
      return data.delete(key);
    },
  };
}

/**
 * The same hop by hand, with no Parley piece: a Map of waiters by session and a Promise; the prompt
 * goes to an adapter's async `send`, the reply comes back to a hand-written inbound handler that
 * looks the session up and reads the word. With `durable`, it also writes what the gate writes, in
 * the same shapes, to a hand-written store: the pending record, the decision (insert if absent)
 * and the delete of the pending record.
 */
async function bareRoundTrip(durable: boolean): Promise<() => Promise<unknown>> {
  const store = bareStore();
  const waiting = new Map<string, { id: string; resolve: (confirmed: boolean) => void }>();
  const onInbound = (message: { chatId: string; senderId: string; text: string }): boolean => {
    const sessionKey = `feishu:${message.chatId}`;
    const waiter = waiting.get(sessionKey);
    if (waiter === undefined) return false;
    waiting.delete(sessionKey);
    const confirmed = message.text.trim() === '确认';
    if (!durable) waiter.resolve(confirmed);
    else {
      const decision = {
        id: waiter.id,
        sessionKey,
        action: ACTION,
        summary: 'DROP x',
        requester: 'ou_a',
        outcome: confirmed ? 'confirmed' : 'cancelled',
        reason: 'reply',
        requestedAt: 0,
        decidedAt: 0,
        decidedBy: message.senderId,
        reply: message.text,
        promptedAt: 0,
      };
      void store
        .insert(`d:${waiter.id}`, decision, 7 * 86_400_000)
        .then(() => store.delete(`p:${waiter.id}`))
        .then(() => waiter.resolve(confirmed));
    }
    return true;
  };
  const send = async (_chatId: string, _text: string): Promise<void> => {};
  let n = 0;
  return () => {
    const id = `c${n}`;
    const chatId = `c${n++ % 1000}`;
    const promise = new Promise<boolean>((resolve) => waiting.set(`feishu:${chatId}`, { id, resolve }));
    const record = {
      v: 1,
      id,
      sessionKey: `feishu:${chatId}`,
      action: ACTION,
      summary: 'DROP x',
      requester: 'ou_a',
      approvers: 'requester',
      steps: null,
      step: 0,
      reprompts: 0,
      timeoutMs: 300_000,
      requestedAt: 0,
      firstPromptedAt: 0,
      promptedAt: 0,
      expiresAt: 300_000,
    };
    void (durable ? store.set(`p:${id}`, record, 300_000) : Promise.resolve(0))
      .then(() => send(chatId, 'DROP x? 确认 / 取消'))
      .then(() => onInbound({ chatId, senderId: 'ou_a', text: '确认' }));
    return promise;
  };
}

suite('confirm: round trip request → reply → decision', {
  cases: {
    'parley confirm gate': gateRoundTrip,
    'bare Map + Promise': () => bareRoundTrip(false),
    'bare + same store writes': () => bareRoundTrip(true),
  },
  goals: [
    { case: 'parley confirm gate', vs: 'bare Map + Promise', slowerByAtMost: 8 },
    { case: 'parley confirm gate', vs: 'bare + same store writes', slowerByAtMost: 3 },
  ],
});
