import type { Clock } from '@parley/core';
import type { Progress } from '@parley/testing';
import type { LoopbackAnswer, LoopbackRoute } from '@parley/testing/loopback';
import type { DiscordPostedMessage } from './discord-types.js';
import { snowflakeAt } from './snowflake.js';

/** The REST route a bot posts messages on (and `failNext` fails). */
export const POST_MESSAGE = /^\/api\/v10\/channels\/(\d+)\/messages$/;

/** What the stand-in's REST API reads and records. */
export interface DiscordRest {
  readonly clock: Clock;
  readonly applicationId: string;
  readonly channelId: string;
  /** A fresh snowflake from the clock. */
  readonly nextId: () => string;
  readonly sent: DiscordPostedMessage[];
  /** Threads by id, with their parent channel. */
  readonly threads: Map<string, string>;
  /** Poked on each posted message (`waitForSent`). */
  readonly progress: Progress;
}

/** Snowflakes from the clock, with an increment that counts within one millisecond. */
export function clockSnowflakes(clock: Clock): () => string {
  let lastMs = -1;
  let seq = 0;
  return (): string => {
    const now = clock.now();
    seq = now === lastMs ? seq + 1 : 10; // the increment field need not start at 0
    lastMs = now;
    return snowflakeAt(now, seq);
  };
}

/** The REST routes: post a message, start a thread on one, look a channel up. */
export function discordRoutes(at: DiscordRest): LoopbackRoute[] {
  const { clock, threads } = at;
  return [
    {
      method: 'POST',
      path: POST_MESSAGE,
      answer: (request): LoopbackAnswer => {
        const message = {
          ...(request.body as object),
          id: at.nextId(),
          channel_id: request.params[0] as string,
        };
        at.sent.push(message);
        at.progress.poke();
        const stamp = new Date(clock.now()).toISOString();
        return { json: { ...message, timestamp: stamp, author: { id: at.applicationId, bot: true } } };
      },
    },
    {
      method: 'POST',
      path: /^\/api\/v10\/channels\/(\d+)\/messages\/\d+\/threads$/,
      answer: (request) => {
        const id = at.nextId();
        const parent = request.params[0] as string;
        threads.set(id, parent);
        const name = (request.body as { name?: unknown } | undefined)?.name;
        return { status: 201, json: { id, parent_id: parent, type: 11, name } };
      },
    },
    {
      method: 'GET',
      path: /^\/api\/v10\/channels\/(\d+)$/,
      answer: (request) => {
        const id = request.params[0] as string;
        const parent = threads.get(id);
        if (parent === undefined && id !== at.channelId)
          return { status: 404, json: { message: 'Unknown Channel', code: 10003 } };
        return { json: { id, type: parent === undefined ? 0 : 11, parent_id: parent ?? null } };
      },
    },
  ];
}
