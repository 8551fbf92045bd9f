// `--platform telegram|feishu|dingtalk|slack`: the same bot on a real chat platform, with the
// platform's credentials from environment variables (see the README). Host wiring only: each entry
// builds the platform library's client, wraps it in its @parley adapter, and says how to start and
// stop it. Not exercised in CI (no network there); the adapters have their own tests.
import * as lark from '@larksuiteoapi/node-sdk';
import type { ChannelAdapter } from '@parley/bus';
import { createDingTalkAdapter } from '@parley/dingtalk';
import { createFeishuAdapter } from '@parley/feishu';
import { createSlackAdapter } from '@parley/slack';
import { createTelegramAdapter } from '@parley/telegram';
import { App } from '@slack/bolt';
import { DWClient } from 'dingtalk-stream';
import { Bot } from 'grammy';

export interface PlatformHost {
  readonly adapter: ChannelAdapter;
  /** Starts receiving, once the adapter is attached to the bus. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The environment variables each platform needs, checked before anything is built. */
const VARIABLES = {
  telegram: ['TELEGRAM_BOT_TOKEN'],
  slack: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'],
  feishu: ['FEISHU_APP_ID', 'FEISHU_APP_SECRET', 'FEISHU_BOT_OPEN_ID'],
  dingtalk: ['DINGTALK_CLIENT_ID', 'DINGTALK_CLIENT_SECRET'],
} as const;
export type Platform = keyof typeof VARIABLES;
export const PLATFORMS = Object.keys(VARIABLES) as readonly Platform[];
type Env = (name: string) => string;

const HOSTS = {
  telegram: (env: Env): PlatformHost => {
    const bot = new Bot(env('TELEGRAM_BOT_TOKEN'));
    const adapter = createTelegramAdapter({ bot });
    bot.use(adapter);
    return { adapter, start: async () => void bot.start(), stop: () => bot.stop() }; // long polling
  },
  slack: (env: Env): PlatformHost => {
    const app = new App({
      token: env('SLACK_BOT_TOKEN'),
      appToken: env('SLACK_APP_TOKEN'),
      socketMode: true, // no public URL needed
      clientOptions: { rejectRateLimitedCalls: true },
    });
    const adapter = createSlackAdapter({ client: app.client });
    app.use(adapter.middleware);
    return {
      adapter,
      start: async () => void (await app.start()),
      stop: async () => void (await app.stop()),
    };
  },
  feishu: (env: Env): PlatformHost => {
    const credentials = { appId: env('FEISHU_APP_ID'), appSecret: env('FEISHU_APP_SECRET') };
    const client = new lark.Client(credentials);
    const dispatcher = new lark.EventDispatcher({});
    const adapter = createFeishuAdapter({ client, dispatcher, botOpenId: env('FEISHU_BOT_OPEN_ID') });
    const ws = new lark.WSClient(credentials); // the long connection: no public URL
    return { adapter, start: () => ws.start({ eventDispatcher: dispatcher }), stop: async () => ws.close() };
  },
  dingtalk: (env: Env): PlatformHost => {
    const clientId = env('DINGTALK_CLIENT_ID'); // the app key, also the robot code
    const client = new DWClient({ clientId, clientSecret: env('DINGTALK_CLIENT_SECRET') });
    const adapter = createDingTalkAdapter({ client, robotCode: clientId });
    // Attaching the adapter subscribes and opens the stream.
    return { adapter, start: async () => undefined, stop: async () => client.disconnect() };
  },
} satisfies Record<Platform, (env: Env) => PlatformHost>;

/** The platform's host from environment variables; throws naming the missing ones before anything starts. */
export function createPlatformHost(platform: Platform): PlatformHost {
  const missing = VARIABLES[platform].filter((name) => (process.env[name] ?? '') === '');
  if (missing.length > 0)
    throw new Error(`Set ${missing.join(', ')} (see examples/channel-confirm/README.md)`);
  return HOSTS[platform]((name) => process.env[name] as string);
}
