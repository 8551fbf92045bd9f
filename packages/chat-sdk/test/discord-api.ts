// A loopback stand-in of Discord's REST API, as the Chat SDK's Discord adapter calls it: messages
// posted to channels and threads (with snowflake ids from the test's clock), threads started from
// a message, channel lookups; a rate limit (HTTP 429 with Discord's body) or a refusal on demand.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@parley/core';

/** Discord's epoch in epoch ms. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** The snowflake Discord would give a thing made at `ms`, the `seq`-th in that millisecond. */
export function snowflakeAt(ms: number, seq = 0): string {
  return ((BigInt(ms - DISCORD_EPOCH_MS) << 22n) | BigInt(seq)).toString();
}

export interface PostedMessage {
  readonly id: string;
  readonly channel_id: string;
  readonly content?: string;
  readonly embeds?: readonly { readonly title?: string; readonly description?: string }[];
  readonly components?: readonly {
    readonly components: readonly {
      readonly custom_id: string;
      readonly label: string;
      readonly style: number;
    }[];
  }[];
}

export interface DiscordApiStandIn {
  readonly url: string;
  /** Every message posted, in order. */
  readonly posted: PostedMessage[];
  /** The channels the stand-in knows: id → parent (threads have one). */
  readonly channels: Map<string, string | undefined>;
  /** Answers the next message post with this HTTP status and body (e.g. 429, a rate limit). */
  failNext(status: number, body: unknown): void;
  close(): Promise<void>;
}

export async function startDiscordApi(clock: Clock): Promise<DiscordApiStandIn> {
  const posted: PostedMessage[] = [];
  const channels = new Map<string, string | undefined>();
  const failures: { status: number; body: unknown }[] = [];
  let lastMs = -1;
  let seq = 0;
  const nextId = (): string => {
    const now = clock.now();
    seq = now === lastMs ? seq + 1 : 10; // the increment field need not start at 0
    lastMs = now;
    return snowflakeAt(now, seq);
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      const reply = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      const path = (req.url ?? '').replace(/^\/api\/v10/, '');
      const post = /^\/channels\/(\d+)\/messages$/.exec(path);
      if (req.method === 'POST' && post !== null) {
        const failure = failures.shift();
        if (failure !== undefined) return reply(failure.status, failure.body);
        const message = { ...(body as object), id: nextId(), channel_id: post[1] as string } as PostedMessage;
        posted.push(message);
        return reply(200, {
          ...message,
          timestamp: new Date(clock.now()).toISOString(),
          author: { id: 'app', bot: true },
        });
      }
      const thread = /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/.exec(path);
      if (req.method === 'POST' && thread !== null) {
        const id = nextId();
        channels.set(id, thread[1]);
        return reply(201, { id, parent_id: thread[1], type: 11, name: (body as { name?: string }).name });
      }
      const lookup = /^\/channels\/(\d+)$/.exec(path);
      if (req.method === 'GET' && lookup !== null && channels.has(lookup[1] as string)) {
        const parent = channels.get(lookup[1] as string);
        return reply(200, { id: lookup[1], type: parent === undefined ? 0 : 11, parent_id: parent ?? null });
      }
      return reply(404, { message: 'Unknown route', code: 0 });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // a listening TCP server has an address
  return {
    url: `http://127.0.0.1:${port}/api/v10`,
    posted,
    channels,
    failNext: (status, body) => void failures.push({ status, body }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? {} : (JSON.parse(text) as unknown);
}
