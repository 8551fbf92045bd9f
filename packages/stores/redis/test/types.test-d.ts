import type { CompareAndSetResult, Store, StoreChange, StoreEntry, Unsubscribe } from '@parley/core';
import type { Redis } from 'ioredis';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createRedisStore,
  type RedisStore,
  type RedisStoreErrorCode,
  type RedisStoreEvents,
  type ResyncReason,
} from '../src/index.js';

declare const redis: Redis;

describe('createRedisStore types', () => {
  it('returns a RedisStore that is a core Store', () => {
    const store = createRedisStore({ redis, prefix: 'app:' });
    expectTypeOf(store).toEqualTypeOf<RedisStore>();
    expectTypeOf(store).toMatchTypeOf<Store>();
    expectTypeOf(store.getEntry('k')).resolves.toEqualTypeOf<StoreEntry | undefined>();
    expectTypeOf(store.compareAndSet('k', null, 1)).resolves.toEqualTypeOf<CompareAndSetResult>();
    expectTypeOf(store.list('p:')).toEqualTypeOf<AsyncIterable<StoreEntry>>();
  });

  it('makes watch required and gives it a resync callback', () => {
    const store = createRedisStore({ redis, prefix: 'app:' });
    const off = store.watch('p:', (change) => expectTypeOf(change).toEqualTypeOf<StoreChange>(), {
      onResync: ({ reason }) => expectTypeOf(reason).toEqualTypeOf<ResyncReason>(),
    });
    expectTypeOf(off).toEqualTypeOf<Unsubscribe>();
  });

  it('types each event payload by name', () => {
    const store = createRedisStore({ redis, prefix: 'app:' });
    store.on('corrupt', (event) => expectTypeOf(event).toEqualTypeOf<RedisStoreEvents['corrupt']>());
    store.on('connection', ({ state }) => expectTypeOf(state).toEqualTypeOf<'lost' | 'ready'>());
    // @ts-expect-error: no such event
    store.on('expired', () => {});
  });

  it('refuses what is not JSON, and options that do not exist', () => {
    const store = createRedisStore({ redis, prefix: 'app:' });
    // @ts-expect-error: a Date is not a JsonValue
    void store.set('k', new Date());
    // @ts-expect-error: the store has no clock; expiry is Redis server time
    createRedisStore({ redis, prefix: 'app:', clock: undefined });
    // @ts-expect-error: prefix is required
    createRedisStore({ redis });
  });

  it('narrows error codes to the literal union', () => {
    expectTypeOf<RedisStoreErrorCode>().toEqualTypeOf<
      | 'connection_lost'
      | 'corrupt_value'
      | 'script_failed'
      | 'command_failed'
      | 'store_closed'
      | 'invalid_prefix'
      | 'invalid_argument'
    >();
  });
});
