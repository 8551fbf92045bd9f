// One bot process on DingTalk: the real DWClient (its gateway request sent to the stand-in, its
// WebSocket to the stand-in's stream endpoint) + the adapter + bus + hygiene + confirm gate.
import axios from 'axios';
import { vi } from 'vitest';
import { DWClient, GATEWAY_URL } from 'dingtalk-stream';
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
import { createDingTalkAdapter, type DingTalkAdapterOptions, type DingTalkError } from '../src/index.js';
import { ROBOT_CODE, T0 } from './payloads.js';
import { CLIENT_ID, CLIENT_SECRET, type DingTalkStandIn, startDingTalk } from './standin.js';

export const SECRET = 'parley-test-secret-0123456789';
export const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;
export const TEMPLATE = 'a1b2c3d4-parley-confirm.schema';

let processes = 0;

export interface Bot {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly dingtalk: DingTalkStandIn;
  readonly client: DWClient;
  readonly bus: MessageBus;
  readonly gate: ConfirmGate;
  readonly errors: DingTalkError[];
  readonly refused: ConfirmEvents['refused'][];
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
  restart(more?: Partial<ConfirmGateOptions>): Promise<Bot>;
  close(): Promise<void>;
}

export interface BotOptions {
  readonly gate?: Partial<ConfirmGateOptions>;
  readonly adapter?: Partial<DingTalkAdapterOptions>;
  readonly shared?: { clock: ManualClock; store: Store; dingtalk: DingTalkStandIn };
}

export interface Process {
  readonly client: DWClient;
  readonly bus: MessageBus;
  readonly errors: DingTalkError[];
  close(): Promise<void>;
}

/** One bot process without a gate: the real DWClient connected to the stand-in, the adapter, a bus. */
export async function startProcess(
  clock: ManualClock,
  dingtalk: DingTalkStandIn,
  more: Partial<DingTalkAdapterOptions> = {},
): Promise<Process> {
  processes++;
  // DWClient posts to the fixed GATEWAY_URL with the axios it imports; the one rewrite here sends
  // that request to the stand-in (same method, headers and body), nothing else is touched.
  const redirect = axios.interceptors.request.use((config) => {
    if (config.url === GATEWAY_URL) config.url = `${dingtalk.url}/v1.0/gateway/connections/open`;
    return config;
  });
  const client = new DWClient({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  client.config.autoReconnect = false; // a reconnect would wait on a real timer
  const errors: DingTalkError[] = [];
  const adapter = createDingTalkAdapter({
    client,
    robotCode: ROBOT_CODE,
    apiBase: dingtalk.url,
    clock,
    cardTemplateId: TEMPLATE,
    generateId: createSequentialIds(`parley_${processes}_`),
    onError: (error) => errors.push(error),
    ...more,
  });
  const bus = createMessageBus({ clock });
  bus.intercept(createHygieneInterceptor());
  await bus.attach(adapter);
  await dingtalk.connected();
  return {
    client,
    bus,
    errors,
    async close() {
      axios.interceptors.request.eject(redirect);
      // Detaching disconnects the client; wait for its socket to close, so a restart's new
      // connection is the only one the stand-in pushes to.
      const gone = dingtalk.connections > 0 ? dingtalk.disconnected() : undefined;
      await bus.close();
      await gone;
    },
  };
}

export async function startBot(options: BotOptions = {}): Promise<Bot> {
  const clock = options.shared?.clock ?? createManualClock({ now: T0 });
  const store = options.shared?.store ?? createMemoryStore({ clock });
  const dingtalk = options.shared?.dingtalk ?? (await startDingTalk());
  const process = await startProcess(clock, dingtalk, options.adapter);
  const { client, bus, errors } = process;
  const gate = createConfirmGate({
    bus,
    clock,
    store,
    secret: SECRET,
    generateId: createSequentialIds(`cfm_${processes}_`),
    ...options.gate,
  });
  await gate.ready;
  const refused: ConfirmEvents['refused'][] = [];
  gate.on('refused', (event) => refused.push(event));
  const bot: Bot = {
    clock,
    store,
    dingtalk,
    client,
    bus,
    gate,
    errors,
    refused,
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
        shared: { clock, store, dingtalk },
      });
    },
    async close() {
      await gate.close();
      await process.close();
    },
  };
  return bot;
}

/** The buttons of the last interactive card sent: label and the value text the template sends back. */
export function lastCardButtons(
  dingtalk: DingTalkStandIn,
): { label: string; value: string; outTrackId: string }[] {
  const call = [...dingtalk.sends]
    .reverse()
    .find((send) => send.path === '/v1.0/card/instances/createAndDeliver');
  if (call === undefined) throw new Error('No card was sent');
  const params = (call.body['cardData'] as { cardParamMap: { buttons: string } }).cardParamMap;
  const outTrackId = call.body['outTrackId'] as string;
  return (JSON.parse(params.buttons) as { label: string; value: string }[]).map((b) => ({
    ...b,
    outTrackId,
  }));
}

let current: Bot | undefined;

/** Starts a bot whose DWClient's connect announcements are silenced; stopped after the test. */
export async function startQuiet(options: BotOptions = {}): Promise<Bot> {
  vi.spyOn(console, 'info').mockImplementation(() => undefined); // DWClient announces each connect
  current = await startBot(options);
  return current;
}

/** Stops what `startQuiet` started; call it in afterEach of a file that uses it. */
export async function stopQuiet(): Promise<void> {
  await current?.close();
  await current?.dingtalk.close();
  current = undefined;
  vi.restoreAllMocks();
}
