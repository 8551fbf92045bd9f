import { isParleyError, type StoreChange } from '@parley/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisStoreEvents } from '../src/index.js';
import { collect, type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
let redis: Redis;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});
afterAll(async () => {
  await server.stop();
});

function fresh(options: { jsonLimits?: { maxBytes: number }; scanCount?: number } = {}) {
  const prefix = `data${++n}:`;
  const store = createRedisStore({ redis, prefix, ...options });
  const corrupt: RedisStoreEvents['corrupt'][] = [];
  store.on('corrupt', (event) => corrupt.push(event));
  return { store, prefix, corrupt, raw: (key: string) => `${prefix}data:${key}` };
}

describe('corrupted and foreign values', () => {
  it('refuses a key of another type with corrupt_value on get, and reports it', async () => {
    const { store, corrupt, raw } = fresh();
    await redis.set(raw('k'), 'not ours');
    const failure = await store.get('k').catch((error: unknown) => error);
    expect(isParleyError(failure, 'corrupt_value')).toBe(true);
    expect((failure as { details: object }).details).toMatchObject({ key: 'k', reason: 'wrong type' });
    expect(corrupt).toEqual([{ key: 'k', reason: 'wrong type', source: 'get' }]);
  });

  it.each([
    ['a hash without a version', { j: '1' }, 'missing or malformed version'],
    ['a malformed version', { v: 'x1', j: '1' }, 'missing or malformed version'],
    ['a hash without a value', { v: '3' }, 'missing value'],
    ['a malformed expiry', { v: '3', j: '1', x: 'soon' }, 'malformed expiry'],
    ['a foreign field', { v: '3', j: '1', owner: 'other-app' }, 'unexpected field "owner"'],
    ['JSON that does not parse', { v: '3', j: '{"a":' }, 'json_syntax'],
    ['JSON with a forbidden key', { v: '3', j: '{"__proto__":{"x":1}}' }, 'json_forbidden_key'],
  ])('refuses %s with corrupt_value', async (_, hash, reason) => {
    const { store, corrupt, raw } = fresh();
    await redis.hset(raw('k'), hash);
    await expect(store.getEntry('k')).rejects.toMatchObject({ code: 'corrupt_value', details: { key: 'k' } });
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0]?.reason).toContain(reason);
  });

  it('skips a corrupted key when listing, reports it, and yields the rest', async () => {
    const { store, corrupt, raw } = fresh();
    await store.set('p:good', 1);
    await redis.hset(raw('p:bad'), { v: '1', j: 'nope' });
    await redis.lpush(raw('p:list'), 'x');
    expect((await collect(store.list('p:'))).map((e) => e.key)).toEqual(['p:good']);
    expect(corrupt.map((e) => [e.key, e.source]).sort()).toEqual([
      ['p:bad', 'list'],
      ['p:list', 'list'],
    ]);
  });

  it('refuses a compare-and-set over a corrupted key, and leaves it as it was', async () => {
    const { store, corrupt, raw } = fresh();
    await redis.set(raw('k'), 'foreign');
    await expect(store.compareAndSet('k', null, 1)).rejects.toMatchObject({ code: 'corrupt_value' });
    await redis.del(raw('h'));
    await redis.hset(raw('h'), { v: 'bad', j: '1' });
    await expect(store.compareAndSet('h', 1, 1)).rejects.toMatchObject({ code: 'corrupt_value' });
    expect(await redis.get(raw('k'))).toBe('foreign');
    expect(corrupt.map((e) => [e.key, e.source])).toEqual([
      ['k', 'write'],
      ['h', 'write'],
    ]);
  });

  it('lets set overwrite and delete remove a corrupted key, so an operator can repair it', async () => {
    const { store, raw } = fresh();
    await redis.set(raw('a'), 'foreign');
    await redis.set(raw('b'), 'foreign');
    expect(await store.set('a', { fixed: true })).toBeGreaterThan(0);
    expect(await store.get('a')).toEqual({ fixed: true });
    expect(await store.delete('b')).toBe(true);
    expect(await redis.exists(raw('b'))).toBe(0);
  });

  it('refuses to write a value its own read limits would refuse', async () => {
    const { store } = fresh({ jsonLimits: { maxBytes: 16 } });
    await expect(store.set('k', 'a string longer than sixteen bytes')).rejects.toMatchObject({
      code: 'json_too_large',
    });
    expect(await store.get('k')).toBeUndefined();
    const defaults = fresh().store;
    await expect(defaults.set('k', JSON.parse('{"__proto__":{"x":1}}'))).rejects.toMatchObject({
      code: 'json_forbidden_key',
      details: { path: '__proto__' },
    });
    expect(await defaults.get('k')).toBeUndefined();
  });

  it('reports a message on its change channel that it did not write, and tells no watcher', async () => {
    const { store, prefix, corrupt } = fresh();
    const heard: StoreChange[] = [];
    await new Promise<void>((resolve) =>
      store.watch('', (c) => heard.push(c), { onResync: () => resolve() }),
    );
    for (const message of ['hello', 's|x|k', 'd|3|k', 'x||k', 's|'])
      await redis.publish(`${prefix}changes`, message);
    await redis.publish(`${prefix}changes`, 's|7|k');
    await until(() => heard.length === 1, 20_000, 'the valid message');
    expect(heard).toEqual([{ key: 'k', version: 7, kind: 'set' }]);
    expect(corrupt.map((e) => e.source)).toEqual(['message', 'message', 'message', 'message', 'message']);
    expect(corrupt[0]).toEqual({
      key: `${prefix}changes`,
      reason: 'unreadable change message "hello"',
      source: 'message',
    });
  });

  it('refuses an empty prefix', () => {
    expect(() => createRedisStore({ redis, prefix: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_prefix' }),
    );
    expect(() => createRedisStore({ redis, prefix: 'app\ud800:' })).toThrow(
      expect.objectContaining({ code: 'invalid_prefix', details: { prefix: 'app%uD800:' } }),
    );
    expect(() => createRedisStore({ redis, prefix: 3 as never })).toThrow(
      expect.objectContaining({ code: 'invalid_prefix', details: { prefix: '3' } }),
    );
  });
});

describe('options', () => {
  it.each([0, -1, 1.5, Number.NaN, 2_000_000, '10' as unknown as number])(
    'refuses scanCount %s with invalid_argument',
    (scanCount) => {
      expect(() => createRedisStore({ redis, prefix: 'opt:', scanCount })).toThrow(
        expect.objectContaining({
          code: 'invalid_argument',
          details: { name: 'scanCount', value: String(scanCount) },
        }),
      );
    },
  );
});

describe('prefix isolation', () => {
  it('keeps two applications on one Redis apart: reads, lists, compare-and-set and watches', async () => {
    const billing = createRedisStore({ redis, prefix: 'billing:' });
    const support = createRedisStore({ redis, prefix: 'support:' });
    const heard: string[] = [];
    await new Promise<void>((resolve) =>
      support.watch('', (c) => heard.push(c.key), { onResync: () => resolve() }),
    );
    const vb = await billing.set('confirm:1', 'billing');
    expect(await support.get('confirm:1')).toBeUndefined();
    expect(await support.compareAndSet('confirm:1', vb, 'stolen')).toEqual({ ok: false, version: null });
    await support.set('confirm:2', 'support');
    expect((await collect(billing.list(''))).map((e) => e.key)).toEqual(['confirm:1']);
    expect((await collect(support.list(''))).map((e) => e.key)).toEqual(['confirm:2']);
    await until(() => heard.length === 1, 20_000, 'the support change');
    expect(heard).toEqual(['confirm:2']);
    await billing.close();
    await support.close();
  });

  it('matches glob characters in prefixes literally', async () => {
    const star = createRedisStore({ redis, prefix: 'glob*:' });
    const plain = createRedisStore({ redis, prefix: 'globX:' });
    await plain.set('[a]', 1);
    await star.set('[a]', 2);
    await star.set('?b', 3);
    expect((await collect(star.list('[a'))).map((e) => e.value)).toEqual([2]);
    expect((await collect(star.list(''))).map((e) => e.value)).toEqual([3, 2]);
    expect((await collect(plain.list(''))).map((e) => e.value)).toEqual([1]);
  });
});

describe('key encoding', () => {
  it('[STORE-1] stores call_\\ud800 and call_\\udbff under two Redis keys, so the second compare-and-set wins', async () => {
    const { store, raw } = fresh();
    expect((await store.compareAndSet('call_\ud800', null, 'a')).ok).toBe(true);
    expect((await store.compareAndSet('call_\udbff', null, 'b')).ok).toBe(true);
    expect(await redis.hget(raw('call_%uD800'), 'j')).toBe('"a"');
    expect(await redis.hget(raw('call_%uDBFF'), 'j')).toBe('"b"');
    expect(await redis.exists(raw('call_\ufffd'))).toBe(0);
  });

  it('keeps the Redis name of a key without %, NUL or surrogates, so records written before are read', async () => {
    const { store, raw } = fresh();
    await redis.hset(raw('confirm:确认 x*?['), { v: '4', j: '{"state":"pending"}' });
    expect(await store.getEntry('confirm:确认 x*?[')).toEqual({
      key: 'confirm:确认 x*?[',
      value: { state: 'pending' },
      version: 4,
      expiresAt: undefined,
    });
    expect((await store.compareAndSet('confirm:确认 x*?[', 4, 'next')).ok).toBe(true);
  });

  it('[STORE-7] skips and reports a key name written before keys were encoded (% or a character outside the BMP)', async () => {
    const { store, raw, corrupt } = fresh();
    await redis.hset(raw('p:50%'), { v: '1', j: '1' });
    await redis.hset(raw('p:😀'), { v: '2', j: '2' });
    await redis.hset(raw('p:%u0041'), { v: '3', j: '3' });
    await store.set('p:ok', 4);
    expect(await store.get('p:50%')).toBeUndefined(); // its new name is p:50%25
    expect((await collect(store.list('p:'))).map((e) => e.key)).toEqual(['p:ok']);
    expect(corrupt.map((e) => [e.key, e.source]).sort()).toEqual([
      ['p:%u0041', 'list'],
      ['p:50%', 'list'],
      ['p:😀', 'list'],
    ]);
    expect(corrupt[0]?.reason).toContain('not in the store key encoding');
    await store.set('p:50%', 'new');
    expect(await redis.hget(raw('p:50%'), 'j')).toBe('1'); // the old record is left for the operator
    expect(await store.get('p:50%')).toBe('new');
  });

  it('reports a change message whose key this store cannot have written, and tells no watcher', async () => {
    const { store, prefix, corrupt } = fresh();
    const heard: StoreChange[] = [];
    await new Promise<void>((resolve) =>
      store.watch('', (c) => heard.push(c), { onResync: () => resolve() }),
    );
    await redis.publish(`${prefix}changes`, 's|3|50%');
    await redis.publish(`${prefix}changes`, 'd||%uD80');
    await redis.publish(`${prefix}changes`, 's|4|k%uD800');
    await until(() => heard.length === 1, 20_000, 'the valid message');
    expect(heard).toEqual([{ key: 'k\ud800', version: 4, kind: 'set' }]);
    expect(corrupt.map((e) => e.reason)).toEqual([
      'unreadable change message "s|3|50%"',
      'unreadable change message "d||%uD80"',
    ]);
  });
});

describe('list over many keys', () => {
  it('yields each of 10 000 keys exactly once with SCAN, among keys of other prefixes', async () => {
    const { store, prefix } = fresh({ scanCount: 700 });
    const pipeline = redis.pipeline();
    for (let i = 0; i < 10_000; i++) {
      pipeline.hset(`${prefix}data:item:${i}`, { v: String(i + 1), j: String(i) });
      pipeline.set(`other:${prefix}${i}`, 'x');
    }
    await pipeline.exec();
    const keys = new Set<string>();
    let sum = 0;
    let count = 0;
    for await (const entry of store.list('item:')) {
      keys.add(entry.key);
      sum += entry.value as number;
      count++;
    }
    expect(count).toBe(10_000);
    expect(keys.size).toBe(10_000);
    expect(sum).toBe((9_999 * 10_000) / 2);
  });
});

describe('ttl', () => {
  it('expires a key in Redis after a short real ttl, and reports server-time expiresAt', async () => {
    const { store, raw } = fresh();
    const [seconds] = await redis.time();
    await store.set('short', 1, { ttlMs: 150.2 });
    const entry = await store.getEntry('short');
    const now = Number(seconds) * 1000;
    expect(entry?.expiresAt).toBeGreaterThanOrEqual(now + 151);
    expect(entry?.expiresAt).toBeLessThan(now + 151 + 5_000);
    expect(await redis.pttl(raw('short'))).toBeGreaterThan(0);
    await until(async () => (await store.get('short')) === undefined, 20_000, 'the key to expire');
    expect((await store.compareAndSet('short', null, 2)).ok).toBe(true); // an expired key is absent
    expect(await redis.pttl(raw('short'))).toBe(-1);
  });
});
