// One bot process on Feishu: the real SDK (Client → the OpenAPI stand-in, EventDispatcher and
// CardActionHandler behind the SDK's own HTTP adapter) + bus + hygiene + confirm gate.
import * as lark from '@larksuiteoapi/node-sdk';
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { ConfirmGateOptions } from '@parley/confirm';
import { createManualClock, createMemoryStore, type ManualClock, type Store } from '@parley/core';
import {
  createFeishuAdapter,
  type FeishuAdapter,
  type FeishuAdapterOptions,
  type FeishuAdapterError,
} from '../src/index.js';
import { createFeishuStandIn, type FeishuStandIn } from '@parley/feishu/testing';
import { serveLoopback } from '@parley/testing/loopback';
import { type GateBot, startGateBot, T0 } from '../../../../tests/support/gate-bot.js';

// The suites' clock start, gate secret and action, shared with the other adapters' tests.
export { ACTION, SECRET, T0 } from '../../../../tests/support/gate-bot.js';

export const BOT = 'ou_bot_7f3a';
export const ALICE = 'ou_alice_2b91';
export const MALLORY = 'ou_mallory_6c04';
export const CHAT = 'oc_ops_5d1e';

const quiet = { error() {}, warn() {}, info() {}, debug() {}, trace() {} };
let apps = 0;

/** A bot process with its confirm gate (`gate`, `refused`, `nextPrompt`), on the suite's stand-in. */
export interface Bot extends GateBot<Process, Bot> {
  readonly feishu: FeishuStandIn;
}

export interface BotOptions {
  readonly gate?: Partial<ConfirmGateOptions>;
  readonly adapter?: Partial<FeishuAdapterOptions>;
  /** The secret the bot's Client asks a token with (the stand-in's by default). */
  readonly appSecret?: string;
  readonly shared?: { clock: ManualClock; store: Store; feishu: FeishuStandIn };
}

export interface Process {
  readonly bus: MessageBus;
  readonly adapter: FeishuAdapter;
  readonly errors: FeishuAdapterError[];
  readonly eventsUrl: string;
  /** The bot's card request URL, for a subscription with the older card callbacks. */
  readonly cardsUrl: string;
  close(): Promise<void>;
}

/** A stand-in of Feishu with the suite's ids, stamped by `clock`; a fresh app id each time. */
export function startFeishu(clock: ManualClock): Promise<FeishuStandIn> {
  apps++;
  // A fresh app id per stand-in: the SDK caches tenant tokens process-wide by app id.
  return createFeishuStandIn({
    clock,
    appId: `cli_a1b2c3_${apps}`,
    botOpenId: BOT,
    chatId: CHAT,
    userOpenId: ALICE,
  });
}

/**
 * One bot process without a gate: the real SDK, the SDK's HTTP adapters on loopback, a bus; the
 * stand-in subscribed to its event URL.
 */
export async function startProcess(
  clock: ManualClock,
  feishu: FeishuStandIn,
  more: Partial<FeishuAdapterOptions> = {},
  appSecret = feishu.appSecret,
): Promise<Process> {
  const client = new lark.Client({ appId: feishu.appId, appSecret, domain: feishu.url, logger: quiet });
  const dispatcher = new lark.EventDispatcher({ encryptKey: feishu.encryptKey, logger: quiet });
  const errors: FeishuAdapterError[] = [];
  const adapter = createFeishuAdapter({
    client,
    botOpenId: BOT,
    dispatcher,
    onError: (error) => errors.push(error),
    ...more,
  });
  const cards = new lark.CardActionHandler(
    { verificationToken: feishu.verificationToken, logger: quiet },
    adapter.handleCardAction,
  );
  const onEvent = lark.adaptDefault('/webhook/event', dispatcher, { autoChallenge: true });
  const onCard = lark.adaptDefault('/webhook/card', cards);
  const server = await serveLoopback((req, res) =>
    req.url === '/webhook/card' ? onCard(req, res) : onEvent(req, res),
  );
  const bus = createMessageBus({ clock });
  bus.intercept(createHygieneInterceptor());
  await bus.attach(adapter);
  const eventsUrl = `${server.url}/webhook/event`;
  const subscribed = await feishu.subscribe({ events: eventsUrl });
  if (!subscribed.ok) throw new Error(subscribed.message);
  return {
    bus,
    adapter,
    errors,
    eventsUrl,
    cardsUrl: `${server.url}/webhook/card`,
    async close() {
      await bus.close();
      await server.close();
    },
  };
}

export async function startBot(options: BotOptions = {}): Promise<Bot> {
  const clock = options.shared?.clock ?? createManualClock({ now: T0 });
  const store = options.shared?.store ?? createMemoryStore({ clock });
  const feishu = options.shared?.feishu ?? (await startFeishu(clock));
  const process = await startProcess(clock, feishu, options.adapter, options.appSecret);
  const bot = await startGateBot({ clock, store }, process, `cfm_${apps}_`, options.gate, (gate) =>
    startBot({ gate, adapter: options.adapter, shared: { clock, store, feishu } }),
  );
  return { ...bot, feishu };
}

/** The card JSON of a recorded interactive message. */
export function cardOf(call: { body: Record<string, unknown> }): {
  header?: { title: { content: string } };
  elements: {
    tag: string;
    text?: { content: string };
    actions?: { text: { content: string }; type: string; value: Record<string, unknown> }[];
  }[];
} {
  return JSON.parse(call.body['content'] as string);
}
