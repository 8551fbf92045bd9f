// Checkpoints on a real redis-server: a process that dies between a snapshot write and the log write
// leaves a snapshot no log names; the next process, after its first log write, deletes it (found
// with the store's SCAN listing) and keeps every snapshot the log names.
import type { Store } from '@parley/core';
import { createCheckpoints } from '@parley/checkpoints';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/index.js';
import { type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterEach(() => server.disconnectClients());
afterAll(async () => {
  await server.stop();
});

type Game = { hp: number };

describe('checkpoints on Redis', () => {
  it('delete the snapshot a process left when it died before the log write', async () => {
    const store = createRedisStore({ redis: server.client(), prefix: 'cp:' });
    const open = (over: Partial<Store> = {}) =>
      createCheckpoints<Game>({ store: { ...store, ...over }, keyPrefix: 'game:', maxCheckpoints: 3 });
    const keys = async (): Promise<string[]> => {
      const found: string[] = [];
      for await (const entry of store.list('game:checkpoint:')) found.push(entry.key);
      return found.sort();
    };

    const first = open({
      // the process dies at the log write of turn_2: the call never returns, nothing after it runs
      compareAndSet: (key, expected, value, options) =>
        (value as { data?: { checkpoints?: unknown[] } }).data?.checkpoints?.length === 3
          ? new Promise<never>(() => {})
          : store.compareAndSet(key, expected, value, options),
    });
    for (const [i, hp] of [10, 9].entries()) expect((await first.take(`turn_${i}`, { hp })).ok).toBe(true);
    void first.take('turn_2', { hp: 8 });
    await until(async () => (await keys()).length === 3, 10_000, 'the snapshot of turn_2 to be written');

    const second = open(); // the restart
    expect(await second.take('turn_2', { hp: 8 })).toMatchObject({ ok: true });
    const log = await second.log();
    expect(log.ok && log.checkpoints.map((c) => c.ref).sort()).toEqual(await keys());
    expect(await second.load('turn_0')).toMatchObject({ ok: true, state: { hp: 10 } });
  });
});
