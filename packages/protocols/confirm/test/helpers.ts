import {
  type ChannelAdapter,
  createMessageBus,
  type DeliverInbound,
  type InboundInput,
  type MessageBus,
  type OutboundMessage,
  type PublishResult,
  type SendReceipt,
} from '@parley/bus';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import {
  createFakeChannel,
  createFakePlatformOrder,
  type FakeChannel,
  type FakePlatformOrder,
} from '@parley/testing';
import {
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  type ConfirmRequest,
  type ConfirmStep,
  createConfirmGate,
} from '../src/index.js';

export interface Harness {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly gate: ConfirmGate;
  readonly decided: ConfirmDecision[];
  readonly events: {
    ignored: ConfirmEvents['ignored'][];
    refused: ConfirmEvents['refused'][];
    error: unknown[];
  };
  /** Resolves with the next `prompted` event. */
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
  /** Resolves with the next `queued` event. */
  nextQueued(): Promise<ConfirmEvents['queued']>;
  /** Starts `REQUEST` (with `overrides`) and returns its decision, without waiting for its prompt. */
  request(overrides?: Partial<ConfirmRequest>): Promise<ConfirmDecision>;
  /** Starts a request in group chat g1 by alice and waits until it is prompted. */
  ask(overrides?: Partial<ConfirmRequest>): Promise<{ decision: Promise<ConfirmDecision>; id: string }>;
  /** A second gate on the same store and a fresh bus: a restart. */
  restart(options?: Partial<ConfirmGateOptions>): Promise<Harness>;
}

export const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;
/** The request the harnesses make unless told otherwise: alice's DELETE in the Feishu group g1. */
export const REQUEST = {
  sessionKey: 'feishu:g1',
  action: ACTION,
  summary: ACTION.args.sql,
  requester: 'alice',
} as const;
/** A second request in the same chat: alice's DROP TABLE, queued behind (or superseding) `REQUEST`. */
export const DROP_REQUEST = {
  ...REQUEST,
  action: { name: 'sql.drop', args: { sql: 'DROP TABLE customers' } },
  summary: 'DROP TABLE customers',
} as const;
/** Three exact steps, each answered with YES. */
export const YES3: readonly ConfirmStep[] = [
  { prompt: 'This may be high-impact. Confirm #1 (YES).', expect: 'YES' },
  { prompt: 'Please reconfirm #2 (YES).', expect: 'YES' },
  { prompt: 'Final confirmation #3 (YES).', expect: 'YES' },
];

/**
 * The platform behind the gates of one store: a restart or a replica (a gate on the same store)
 * talks to the same chat platform, which keeps numbering its chats' messages.
 */
const platforms = new WeakMap<Store, FakePlatformOrder>();
export function platformOf(store: Store): FakePlatformOrder {
  let platform = platforms.get(store);
  if (platform === undefined) {
    platform = createFakePlatformOrder();
    platforms.set(store, platform);
  }
  return platform;
}

export async function setup(
  options: Partial<ConfirmGateOptions> = {},
  shared?: { clock: ManualClock; store: Store },
): Promise<Harness> {
  const clock = shared?.clock ?? createManualClock({ now: 1_000_000 });
  const store = shared?.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock, order: platformOf(store) });
  await bus.attach(channel);
  const gate = createConfirmGate({ bus, clock, store, generateId: createSequentialIds('cfm_'), ...options });
  await gate.ready;
  const decided: ConfirmDecision[] = [];
  const events: Harness['events'] = { ignored: [], refused: [], error: [] };
  gate.on('decided', ({ decision }) => decided.push(decision));
  gate.on('ignored', (event) => events.ignored.push(event));
  gate.on('refused', (event) => events.refused.push(event));
  gate.on('error', ({ error }) => events.error.push(error));
  const nextPrompt = (): Promise<ConfirmEvents['prompted']> => nextEvent(gate, 'prompted');
  const request = (overrides: Partial<ConfirmRequest> = {}): Promise<ConfirmDecision> =>
    gate.request({ ...REQUEST, ...overrides });
  const nextQueued = (): Promise<ConfirmEvents['queued']> => nextEvent(gate, 'queued');
  const harness: Harness = {
    nextQueued,
    clock,
    store,
    bus,
    channel,
    gate,
    decided,
    events,
    nextPrompt,
    request,
    async ask(overrides = {}) {
      const prompted = nextPrompt();
      const decision = request(overrides);
      const { id } = await Promise.race([prompted, decision.then((d) => ({ id: d.id }))]);
      return { decision, id };
    },
    restart: (more = {}) =>
      setup({ ...options, generateId: createSequentialIds('cfm_r'), ...more }, { clock, store }),
  };
  return harness;
}

/** The `confirmation` token of a button of the last card sent to a chat. */
export function buttonToken(
  channel: FakeChannel,
  choice: 'confirm' | 'cancel' | 'always',
  chatId = 'g1',
): string {
  const card = channel.lastSent(chatId)?.card;
  const index = { confirm: 0, cancel: 1, always: 2 }[choice];
  const value = card?.buttons[index]?.value as { confirmation: string } | undefined;
  if (value === undefined) throw new Error(`No ${choice} button in the last card sent to ${chatId}`);
  return value.confirmation;
}

/** A channel whose sends hang until the test resolves (or fails) them: a slow platform. */
export interface SlowChannel {
  readonly adapter: ChannelAdapter;
  /** Sends not yet resolved, oldest first. */
  readonly held: {
    readonly message: OutboundMessage;
    resolve(receipt?: SendReceipt): void;
    reject(error: unknown): void;
  }[];
  /** Every message whose send resolved. */
  readonly delivered: OutboundMessage[];
  /** Resolves the oldest held send, with the platform's receipt when one is given. */
  deliverNext(receipt?: SendReceipt): void;
  say(chatId: string, senderId: string, text: string, extra?: Partial<InboundInput>): Promise<PublishResult>;
}

export function createSlowChannel(channel = 'feishu'): SlowChannel {
  let deliver: DeliverInbound | undefined;
  const held: SlowChannel['held'] = [];
  const delivered: OutboundMessage[] = [];
  return {
    held,
    delivered,
    adapter: {
      channel,
      connect(next) {
        deliver = next;
      },
      send: (message) =>
        new Promise<SendReceipt | undefined>((resolve, reject) => {
          held.push({
            message,
            resolve: (receipt) => {
              delivered.push(message);
              resolve(receipt);
            },
            reject,
          });
        }),
    },
    deliverNext(receipt) {
      const next = held.shift();
      if (next === undefined) throw new Error('No send is held');
      next.resolve(receipt);
    },
    say(chatId, senderId, text, extra = {}) {
      if (deliver === undefined) throw new Error('Not attached');
      return deliver({ chatId, senderId, text, ...extra });
    },
  };
}

/** A gate on a bus with a slow channel. */
export async function setupSlow(options: Partial<ConfirmGateOptions> = {}): Promise<{
  clock: ManualClock;
  bus: MessageBus;
  slow: SlowChannel;
  gate: ConfirmGate;
  ignored: ConfirmEvents['ignored'][];
  errors: unknown[];
  /** Starts `REQUEST` (with `overrides`) and lets its prompt start sending: no time passes. */
  ask(overrides?: Partial<ConfirmRequest>): Promise<{ decision: Promise<ConfirmDecision> }>;
}> {
  const clock = createManualClock({ now: 1_000_000 });
  const bus = createMessageBus({ clock });
  const slow = createSlowChannel();
  await bus.attach(slow.adapter);
  const gate = createConfirmGate({
    bus,
    clock,
    generateId: createSequentialIds('cfm_'),
    cards: false,
    ...options,
  });
  await gate.ready;
  const ignored: ConfirmEvents['ignored'][] = [];
  const errors: unknown[] = [];
  gate.on('ignored', (event) => ignored.push(event));
  gate.on('error', ({ error }) => errors.push(error));
  const ask = async (overrides: Partial<ConfirmRequest> = {}) => {
    const decision = gate.request({ ...REQUEST, ...overrides });
    await flush();
    return { decision };
  };
  return { clock, bus, slow, gate, ignored, errors, ask };
}

/**
 * Two replicas on one store: gate A prompts through a platform whose sends hang until released
 * (`slow`), gate B follows on a fake channel of the same chat platform. `options` go to both.
 */
export async function slowOwnerAndFollower(
  clock: ManualClock,
  store: Store,
  options: Partial<ConfirmGateOptions> = {},
): Promise<{
  a: ConfirmGate;
  b: ConfirmGate;
  slow: SlowChannel;
  busB: MessageBus;
  channelB: FakeChannel;
}> {
  const busA = createMessageBus({ clock });
  const slow = createSlowChannel();
  await busA.attach(slow.adapter);
  const a = createConfirmGate({ bus: busA, clock, store, generateId: createSequentialIds('a_'), ...options });
  const busB = createMessageBus({ clock });
  const channelB = createFakeChannel({ channel: 'feishu', clock });
  await busB.attach(channelB);
  const b = createConfirmGate({ bus: busB, clock, store, generateId: createSequentialIds('b_'), ...options });
  await Promise.all([a.ready, b.ready]);
  return { a, b, slow, busB, channelB };
}

/** Resolves with the next `name` event of `gate`. */
function nextEvent<K extends 'prompted' | 'queued'>(gate: ConfirmGate, name: K): Promise<ConfirmEvents[K]> {
  return new Promise((resolve) => {
    const off = gate.on(name, (event) => {
      off();
      resolve(event);
    });
  });
}

/** Lets queued promise callbacks and store writes run (microtasks only; no time passes). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

/**
 * Resolves with what `promise` settles to once queued callbacks have run; throws naming `what`
 * when it is still pending then (the waits these tests check must end without time passing).
 */
export async function settledNow<T>(promise: Promise<T>, what: string): Promise<T> {
  const pending = Symbol('pending');
  const result = await Promise.race([promise, flush().then(() => pending)]);
  if (result === pending) throw new Error(`Still waiting for ${what}`);
  return result as T;
}

/**
 * The plain JSON a gate stored under `key` (the data of its kernel record), for tests that read
 * or tamper with what is stored.
 */
export async function storedData(store: Store, key: string): Promise<Record<string, unknown>> {
  const envelope = (await store.get(key)) as { data: Record<string, unknown> };
  return envelope.data;
}

/** Stores `data` under `key` as a gate of this version would (a kernel record of format 2). */
export async function storeData(
  store: Store,
  key: string,
  kind: 'pending' | 'decision',
  data: Record<string, unknown>,
): Promise<void> {
  const envelope = {
    kind: `parley.confirm.${kind}`,
    version: 2,
    data,
    lease: null,
    fence: 0,
    deadlineAt: null,
  };
  await store.set(key, JSON.parse(JSON.stringify(envelope)));
}
