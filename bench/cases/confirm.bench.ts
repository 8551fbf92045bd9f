import {
  type ChannelAdapter,
  createMessageBus,
  type InboundInput,
  type InboundInterceptor,
  type InboundMessage,
  type MessageBus,
} from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, createMemoryStore, type ManualClock } from '@parley/core';
import { suite } from '../lib.js';

const SESSIONS = 10_000;
/** The action as the gate records it (name, canonical args, SHA-256 digest). */
const ACTION = { name: 'drop', args: { t: 'x' }, digest: 'e'.repeat(64) };
const PENDING = 1_000; // sessions 0..999 have a confirmation pending; the measured ones do not

/** An adapter that accepts every send, so outbound messages do not pile up in the bus queue. */
const sink: ChannelAdapter = { channel: 'feishu', send: async () => {} };

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

/** A bus with a gate holding PENDING prompted confirmations (or none when `withGate` is false). */
async function loadedBus(
  withGate: boolean,
): Promise<{ bus: MessageBus; interceptors: InboundInterceptor[] }> {
  const clock = createManualClock();
  const interceptors: InboundInterceptor[] = [];
  const bus = spyBus(clock, interceptors);
  await bus.attach(sink);
  if (withGate) {
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

async function publishing(withGate: boolean): Promise<() => unknown> {
  const { bus } = await loadedBus(withGate);
  const list = inputs();
  let n = 0;
  return () => bus.publishInbound(list[n++ % list.length] as InboundInput);
}

suite('confirm: publishInbound, 10k sessions, nothing pending in this one', {
  cases: {
    'bus with confirm gate': () => publishing(true),
    'bus without gate': () => publishing(false),
  },
  goals: [{ case: 'bus with confirm gate', vs: 'bus without gate', slowerByAtMost: 1.5 }],
});

/** The gate's interceptor called directly on messages of sessions with nothing pending: what it adds. */
async function interceptorAlone(withGate: boolean): Promise<() => unknown> {
  const { interceptors } = await loadedBus(withGate);
  const intercept = withGate
    ? (interceptors[0] as InboundInterceptor).intercept
    : (_message: InboundMessage): boolean => false;
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
    'confirm interceptor': () => interceptorAlone(true),
    'empty interceptor': () => interceptorAlone(false),
  },
});

/**
 * A full round trip on one bus: request → prompt published → reply "确认" published inbound and
 * intercepted → decision. The gate also digests the action (SHA-256), persists the pending
 * record, records the decision (compare-and-set) and removes the record in its memory store.
 */
async function gateRoundTrip(): Promise<() => Promise<unknown>> {
  const clock = createManualClock();
  const bus = createMessageBus({ clock });
  await bus.attach(sink);
  const gate = createConfirmGate({ bus, clock, store: createMemoryStore({ clock }), cards: false });
  await gate.ready;
  let n = 0;
  gate.on('prompted', ({ sessionKey }) => {
    void bus.publishInbound({
      channel: 'feishu',
      chatId: sessionKey.slice(7),
      senderId: 'ou_a',
      text: '确认',
    });
  });
  return () =>
    gate.request({
      sessionKey: `feishu:c${n++ % 1000}`,
      action: { name: 'drop', args: { t: 'x' } },
      summary: 'DROP x',
      requester: 'ou_a',
    });
}

/**
 * The same hop by hand: a Map of waiters by session and a Promise, the prompt published on the
 * same bus, the reply published inbound and taken by a hand-written interceptor. With `durable`,
 * it also writes what the gate writes, in the same shapes: the pending record, the decision, and
 * the delete of the pending record.
 */
async function bareRoundTrip(durable: boolean): Promise<() => Promise<unknown>> {
  const clock = createManualClock();
  const bus = createMessageBus({ clock });
  await bus.attach(sink);
  const store = createMemoryStore({ clock });
  const waiting = new Map<string, { id: string; resolve: (confirmed: boolean) => void }>();
  bus.intercept({
    name: 'bare',
    intercept(message) {
      const waiter = waiting.get(message.sessionKey);
      if (waiter === undefined) return false;
      waiting.delete(message.sessionKey);
      const confirmed = message.text.trim() === '确认';
      if (!durable) waiter.resolve(confirmed);
      else {
        const decision = {
          id: waiter.id,
          sessionKey: message.sessionKey,
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
          .compareAndSet(`d:${waiter.id}`, null, decision, { ttlMs: 7 * 86_400_000 })
          .then(() => store.delete(`p:${waiter.id}`))
          .then(() => waiter.resolve(confirmed));
      }
      return true;
    },
  });
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
    void (durable ? store.set(`p:${id}`, record, { ttlMs: 300_000 }) : Promise.resolve(0))
      .then(() => bus.publishOutbound({ channel: 'feishu', chatId, text: 'DROP x? 确认 / 取消' }))
      .then(() => bus.publishInbound({ channel: 'feishu', chatId, senderId: 'ou_a', text: '确认' }));
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
    { case: 'parley confirm gate', vs: 'bare Map + Promise', slowerByAtMost: 3 },
    { case: 'parley confirm gate', vs: 'bare + same store writes', slowerByAtMost: 3 },
  ],
});
