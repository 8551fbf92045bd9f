import type { StoreChange, StoreWatchOptions, Unsubscribe } from '@parley/core';
import type { Redis } from 'ioredis';
import { decodeChange, type Layout, storeKeyOf } from './codec.js';

/**
 * Why a watcher must re-read the state it follows: `subscribed` once its subscription is live
 * (changes made between `watch()` and then were not heard), `reconnected` after the subscriber
 * connection came back (changes made during the outage were not heard).
 *
 * @example
 * ```ts
 * import type { ResyncReason } from '@parley/redis';
 *
 * const reason: ResyncReason = 'reconnected';
 * ```
 */
export type ResyncReason = 'subscribed' | 'reconnected';

/**
 * Options of `RedisStore.watch`: core's `StoreWatchOptions`.
 *
 * Pub/sub delivers at most once and keeps nothing for a disconnected subscriber, so a component
 * that follows changes re-reads its state in `onResync`.
 *
 * @example
 * ```ts
 * import type { RedisWatchOptions } from '@parley/redis';
 *
 * const options: RedisWatchOptions = {
 *   onResync: ({ prefix, reason }) => console.log(`re-read ${prefix} (${reason})`),
 * };
 * ```
 */
export type RedisWatchOptions = StoreWatchOptions;

export interface HubHooks {
  /** Resolves when the command connection is up, so a watcher told to re-read can. */
  commandsReady(): Promise<void>;
  onResync(reason: ResyncReason): void;
  onState(state: 'lost' | 'ready'): void;
  onError(error: unknown, source: 'subscriber' | 'listener'): void;
  onMalformed(channel: string, message: string): void;
}

export interface WatchHub {
  add(prefix: string, listener: (change: StoreChange) => void, options: RedisWatchOptions): Unsubscribe;
  close(): void;
}

interface Watcher {
  readonly prefix: string;
  readonly listener: (change: StoreChange) => void;
  readonly onResync: RedisWatchOptions['onResync'];
}

/**
 * One subscriber connection per store (a duplicate of the caller's client), created on the first
 * watch, shared by every watcher and resubscribed by hand after each reconnect, so the resync
 * signal goes out only once the subscription is live again.
 */
export function createWatchHub(redis: Redis, layout: Layout, hooks: HubHooks): WatchHub {
  const watchers = new Set<Watcher>();
  // ioredis fills in every default option, so db is always set (0 unless chosen).
  const expired = `__keyevent@${redis.options.db as number}__:expired`;
  let subscriber: Redis | undefined;
  let live = false;
  let everLive = false;

  function dispatch(change: StoreChange): void {
    for (const watcher of [...watchers]) {
      if (!change.key.startsWith(watcher.prefix)) continue;
      try {
        watcher.listener(change);
      } catch (error) {
        hooks.onError(error, 'listener');
      }
    }
  }

  function resync(targets: Iterable<Watcher>, reason: ResyncReason): void {
    for (const watcher of [...targets]) {
      if (!watchers.has(watcher)) continue;
      try {
        watcher.onResync?.({ prefix: watcher.prefix, reason });
      } catch (error) {
        hooks.onError(error, 'listener');
      }
    }
  }

  function start(): Redis {
    const sub = redis.duplicate({ autoResubscribe: false, lazyConnect: false });
    const onError = (error: unknown): void => hooks.onError(error, 'subscriber');
    sub.on('error', onError);
    sub.on('close', () => {
      if (!live) return;
      live = false;
      hooks.onState('lost');
    });
    sub.on('ready', () => {
      sub.subscribe(layout.changes, expired).then(
        () => {
          if (subscriber !== sub) return; // closed meanwhile
          const reason: ResyncReason = everLive ? 'reconnected' : 'subscribed';
          if (everLive) hooks.onState('ready');
          live = true;
          everLive = true;
          // The subscriber can be back before the command connection: re-reads wait for it.
          return hooks.commandsReady().then(() => {
            if (subscriber !== sub || !live) return; // closed or dropped again meanwhile
            hooks.onResync(reason);
            resync(watchers, reason);
          });
        },
        onError, // the connection dropped again before Redis confirmed; the next 'ready' retries
      );
    });
    sub.on('message', (channel: string, message: string) => {
      if (channel === expired) {
        // A key name this store cannot have written (an older version's) expires unannounced.
        const key = message.startsWith(layout.data)
          ? storeKeyOf(message.slice(layout.data.length))
          : undefined;
        if (key !== undefined) dispatch({ key, version: null, kind: 'expire' });
        return;
      }
      const change = decodeChange(message);
      if (change === undefined) hooks.onMalformed(channel, message);
      else dispatch(change);
    });
    return sub;
  }

  return {
    add(prefix, listener, options) {
      const watcher: Watcher = { prefix, listener, onResync: options.onResync };
      watchers.add(watcher);
      subscriber ??= start();
      // A watcher added to a live subscription hears every later change; tell it so.
      if (live) queueMicrotask(() => resync([watcher], 'subscribed'));
      return () => {
        watchers.delete(watcher);
      };
    },
    close() {
      watchers.clear();
      const sub = subscriber;
      subscriber = undefined;
      live = false;
      // Nothing is pending on a subscriber connection, so it is dropped rather than quit politely.
      sub?.disconnect();
    },
  };
}
