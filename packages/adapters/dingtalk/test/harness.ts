// One bot process on DingTalk: the real DWClient (its gateway request sent to the stand-in, its
// WebSocket to the stand-in's stream endpoint) + the adapter + bus + hygiene + confirm gate.
import { vi } from 'vitest';
import { DWClient } from 'dingtalk-stream';
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { ConfirmGateOptions } from '@parley/confirm';
import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import type { ManualClock, Store } from '@parley/core';
import {
  createDingTalkAdapter,
  type DingTalkAdapterOptions,
  type DingTalkAdapterError,
} from '../src/index.js';
import { createDingTalkStandIn, type DingTalkStandIn } from '@parley/dingtalk/testing';
import { type GateBot, startGateBot, T0 } from '../../../../tests/support/gate-bot.js';

// The suites' clock start, gate secret and action, shared with the other adapters' tests.
export { ACTION, SECRET, T0 } from '../../../../tests/support/gate-bot.js';

export const GROUP = 'cidQ9bCw8YyUu6Hc1Aq0Zfg==';
export const ALICE = 'manager4521';
export const MALLORY = 'staff0666';
/** The direct conversation of Alice with the robot, as the stand-in names it. */
export const DIRECT = `cidP2p${ALICE}==`;
/** The robot's own sender id on the stand-in. */
export const BOT_UID = '$:LWCP_v1:$standinBot';
export const ROBOT_CODE = 'dingq7xbm2kz4frsel0n';

/** The exported stand-in with the suite's ids, stamping pushed messages with `clock`. */
export function startDingTalk(clock: ManualClock): Promise<DingTalkStandIn> {
  return createDingTalkStandIn({ clock, clientId: ROBOT_CODE, conversationId: GROUP, userId: ALICE });
}

export const TEMPLATE = 'a1b2c3d4-parley-confirm.schema';

let processes = 0;

/** A bot process with its confirm gate (`gate`, `refused`, `nextPrompt`), on the suite's stand-in. */
export interface Bot extends GateBot<Process, Bot> {
  readonly dingtalk: DingTalkStandIn;
}

export interface BotOptions {
  readonly gate?: Partial<ConfirmGateOptions>;
  readonly adapter?: Partial<DingTalkAdapterOptions>;
  readonly shared?: { clock: ManualClock; store: Store; dingtalk: DingTalkStandIn };
}

export interface Process {
  readonly client: DWClient;
  readonly bus: MessageBus;
  readonly errors: DingTalkAdapterError[];
  close(): Promise<void>;
}

/** One bot process without a gate: the real DWClient connected to the stand-in, the adapter, a bus. */
export async function startProcess(
  clock: ManualClock,
  dingtalk: DingTalkStandIn,
  more: Partial<DingTalkAdapterOptions> = {},
): Promise<Process> {
  processes++;
  // DWClient asks the fixed GATEWAY_URL for its endpoint: the stand-in routes that request to itself.
  const client = new DWClient({ clientId: dingtalk.clientId, clientSecret: dingtalk.clientSecret });
  client.config.autoReconnect = false; // a reconnect would wait on a real timer
  const errors: DingTalkAdapterError[] = [];
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
  const dingtalk = options.shared?.dingtalk ?? (await startDingTalk(clock));
  const process = await startProcess(clock, dingtalk, options.adapter);
  const bot = await startGateBot({ clock, store }, process, `cfm_${processes}_`, options.gate, (gate) =>
    startBot({ gate, adapter: options.adapter, shared: { clock, store, dingtalk } }),
  );
  return { ...bot, dingtalk };
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
