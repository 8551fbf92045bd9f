// The Chat SDK's Redis state adapter on a real redis-server, shared by two processes of the bot
// (a restart): a Gateway message redelivered to the second process is recognised by the Chat SDK's
// dedupe in Redis and never reaches its bus again; a new message does.
import { createRedisState } from '@chat-adapter/state-redis';
import { createManualClock } from '@parley/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../stores/redis/test/helpers.js';
import { createDiscordStandIn, snowflakeAt } from '../src/testing.js';
import { ALICE, startDiscord } from './helpers.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

it('recognises a message redelivered to a restarted process through the Redis state', async () => {
  const clock = createManualClock({ now: T0 });
  const api = await createDiscordStandIn({ clock });
  const url = `redis://127.0.0.1:${redis.port}`;
  const first = await startDiscord(clock, api, createRedisState({ url }));
  const id = snowflakeAt(T0, 1);
  await api.message(ALICE, 'status please', { id });
  await first.received(1);
  await first.close();

  const second = await startDiscord(clock, api, createRedisState({ url }));
  await api.message(ALICE, 'status please', { id }); // the Gateway forwards it again
  await api.message(ALICE, 'and now?', { id: snowflakeAt(T0, 2) });
  await second.received(1);
  expect(second.inbound.map((message) => message.text)).toEqual(['and now?']);
  await second.close();
  await api.close();
});
