// `--platform telegram|feishu|dingtalk|slack`: the same bot on a real chat platform, with the
// platform's credentials from environment variables (see the README). Host wiring only: each
// branch builds the platform library's client, wraps it in its @parley adapter, and says how to
// start and stop it. Not exercised in CI (no network there); the adapters have their own tests.
import * as lark from '@larksuiteoapi/node-sdk';
import type { ChannelAdapter } from '@parley/bus';
import { createDingTalkAdapter } from '@parley/dingtalk';
import { createFeishuAdapter } from '@parley/feishu';
import { createSlackAdapter } from '@parley/slack';
import { createTelegramAdapter } from '@parley/telegram';
import { App } from '@slack/bolt';
import { DWClient } from 'dingtalk-stream';
import { Bot } from 'grammy';

export const PLATFORMS = ['telegram', 'feishu', 'dingtalk', 'slack'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface PlatformHost {
  readonly adapter: ChannelAdapter;
  /** Starts receiving, once the adapter is attached to the bus. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The named variables, or an error naming the missing ones. */
function env<K extends string>(...names: K[]): Record<K, string> {
  const missing = names.filter((name) => (process.env[name] ?? '') === '');
  if (missing.length > 0)
    throw new Error(`Set ${missing.join(', ')} (see examples/channel-confirm/README.md)`);
  return Object.fromEntries(names.map((name) => [name, process.env[name] as string])) as Record<K, string>;
}

export function createPlatformHost(platform: Platform): PlatformHost {
  switch (platform) {
    case 'telegram': {
      const { TELEGRAM_BOT_TOKEN } = env('TELEGRAM_BOT_TOKEN');
      const bot = new Bot(TELEGRAM_BOT_TOKEN);
      const adapter = createTelegramAdapter({ bot });
      bot.use(adapter);
      return {
        adapter,
        start: async () => void bot.start(), // long polling until stop()
        stop: () => bot.stop(),
      };
    }
    case 'slack': {
      const { SLACK_BOT_TOKEN, SLACK_APP_TOKEN } = env('SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN');
      const app = new App({
        token: SLACK_BOT_TOKEN,
        appToken: SLACK_APP_TOKEN,
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
    }
    case 'feishu': {
      const { FEISHU_APP_ID, FEISHU_APP_SECRET, FEISHU_BOT_OPEN_ID } = env(
        'FEISHU_APP_ID',
        'FEISHU_APP_SECRET',
        'FEISHU_BOT_OPEN_ID',
      );
      const client = new lark.Client({ appId: FEISHU_APP_ID, appSecret: FEISHU_APP_SECRET });
      const dispatcher = new lark.EventDispatcher({});
      const adapter = createFeishuAdapter({ client, dispatcher, botOpenId: FEISHU_BOT_OPEN_ID });
      const ws = new lark.WSClient({ appId: FEISHU_APP_ID, appSecret: FEISHU_APP_SECRET });
      return {
        adapter,
        start: () => ws.start({ eventDispatcher: dispatcher }), // the long connection: no public URL
        stop: async () => ws.close(),
      };
    }
    case 'dingtalk': {
      const { DINGTALK_CLIENT_ID, DINGTALK_CLIENT_SECRET } = env(
        'DINGTALK_CLIENT_ID',
        'DINGTALK_CLIENT_SECRET',
      );
      const client = new DWClient({ clientId: DINGTALK_CLIENT_ID, clientSecret: DINGTALK_CLIENT_SECRET });
      const adapter = createDingTalkAdapter({ client, robotCode: DINGTALK_CLIENT_ID });
      // Attaching the adapter subscribes and opens the stream.
      return { adapter, start: async () => undefined, stop: async () => client.disconnect() };
    }
  }
}
