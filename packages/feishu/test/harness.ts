// One bot process on Feishu: the real SDK (Client → the OpenAPI stand-in, EventDispatcher and
// CardActionHandler behind the SDK's own HTTP adapter) + bus + hygiene + confirm gate.
import * as lark from '@larksuiteoapi/node-sdk';
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import {
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  createConfirmGate,
} from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import {
  createFeishuAdapter,
  type FeishuAdapter,
  type FeishuAdapterOptions,
  type FeishuError,
} from '../src/index.js';
import { sendRequest, serveLoopback } from '@parley/testing/loopback';
import { APP_ID, BOT, ENCRYPT_KEY, T0, VERIFICATION_TOKEN } from './events.js';
import { type OpenApiStandIn, startOpenApi } from './openapi.js';

export const SECRET = 'parley-test-secret-0123456789';
export const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;

const quiet = { error() {}, warn() {}, info() {}, debug() {}, trace() {} };
let apps = 0;

export interface Bot {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly api: OpenApiStandIn;
  readonly bus: MessageBus;
  readonly adapter: FeishuAdapter;
  readonly gate: ConfirmGate;
  readonly errors: FeishuError[];
  readonly refused: ConfirmEvents['refused'][];
  /** POSTs a request to the bot's webhook path and returns the parsed answer. */
  post(
    path: '/webhook/event' | '/webhook/card',
    request: { body: string; headers: Record<string, string> },
  ): Promise<unknown>;
  /** Resolves at the gate's next `prompted` event. */
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
  /** The same store, stand-in and clock; a new process. */
  restart(more?: Partial<ConfirmGateOptions>): Promise<Bot>;
  close(): Promise<void>;
}

export interface BotOptions {
  readonly gate?: Partial<ConfirmGateOptions>;
  readonly adapter?: Partial<FeishuAdapterOptions>;
  readonly shared?: { clock: ManualClock; store: Store; api: OpenApiStandIn };
}

export interface Process {
  readonly bus: MessageBus;
  readonly adapter: FeishuAdapter;
  readonly errors: FeishuError[];
  /** POSTs a request to the bot's webhook path and returns the parsed answer. */
  post(
    path: '/webhook/event' | '/webhook/card',
    request: { body: string; headers: Record<string, string> },
  ): Promise<unknown>;
  close(): Promise<void>;
}

/** One bot process without a gate: the real SDK, the SDK's HTTP adapters on loopback, a bus. */
export async function startProcess(
  clock: ManualClock,
  api: OpenApiStandIn,
  more: Partial<FeishuAdapterOptions> = {},
): Promise<Process> {
  apps++;
  // A fresh app id per process: the SDK caches tenant tokens process-wide by app id.
  const client = new lark.Client({
    appId: `${APP_ID}_${apps}`,
    appSecret: 'secret',
    domain: api.url,
    logger: quiet,
  });
  const dispatcher = new lark.EventDispatcher({ encryptKey: ENCRYPT_KEY, logger: quiet });
  const errors: FeishuError[] = [];
  const adapter = createFeishuAdapter({
    client,
    botOpenId: BOT,
    dispatcher,
    onError: (error) => errors.push(error),
    ...more,
  });
  const cards = new lark.CardActionHandler(
    { verificationToken: VERIFICATION_TOKEN, logger: quiet },
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
  return {
    bus,
    adapter,
    errors,
    async post(path, request) {
      const answer = await sendRequest(`${server.url}${path}`, request);
      return answer.text === '' || answer.text === 'undefined'
        ? undefined
        : (JSON.parse(answer.text) as unknown);
    },
    async close() {
      await bus.close();
      await server.close();
    },
  };
}

export async function startBot(options: BotOptions = {}): Promise<Bot> {
  const clock = options.shared?.clock ?? createManualClock({ now: T0 });
  const store = options.shared?.store ?? createMemoryStore({ clock });
  const api = options.shared?.api ?? (await startOpenApi(clock));
  const process = await startProcess(clock, api, options.adapter);
  const { bus, adapter, errors } = process;
  const gate = createConfirmGate({
    bus,
    clock,
    store,
    secret: SECRET,
    generateId: createSequentialIds(`cfm_${apps}_`),
    ...options.gate,
  });
  await gate.ready;
  const refused: ConfirmEvents['refused'][] = [];
  gate.on('refused', (event) => refused.push(event));
  const bot: Bot = {
    clock,
    store,
    api,
    bus,
    adapter,
    gate,
    errors,
    refused,
    post: process.post,
    nextPrompt: () =>
      new Promise((resolve) => {
        const off = gate.on('prompted', (event) => {
          off();
          resolve(event);
        });
      }),
    async restart(more = {}) {
      await bot.close();
      return startBot({
        gate: { ...options.gate, ...more },
        adapter: options.adapter,
        shared: { clock, store, api },
      });
    },
    async close() {
      await gate.close();
      await process.close();
    },
  };
  return bot;
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

/** The value of the button labelled `label` in a recorded card. */
export function buttonValue(call: { body: Record<string, unknown> }, label: RegExp): Record<string, unknown> {
  const actions = cardOf(call).elements.find((element) => element.tag === 'action')?.actions ?? [];
  const button = actions.find((action) => label.test(action.text.content));
  if (button === undefined) throw new Error(`No button ${label}`);
  return button.value;
}
