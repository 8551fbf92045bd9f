import {
  type Clock,
  decodeStoreKey,
  type StoreChange,
  type StoreWatchOptions,
  type TimerHandle,
  type Unsubscribe,
} from '@parley/core';
import type { Db, Listening } from './driver.js';

/**
 * Why a watcher must re-read the state it follows: `subscribed` once its LISTEN is live (changes
 * made between `watch()` and then were not heard), `reconnected` after the listening connection
 * came back (NOTIFY keeps nothing for a disconnected listener).
 *
 * @example
 * ```ts
 * import type { PostgresResyncReason } from '@parley/postgres';
 *
 * const reason: PostgresResyncReason = 'reconnected';
 * ```
 */
export type PostgresResyncReason = 'subscribed' | 'reconnected';

export interface HubHooks {
  onResync(reason: PostgresResyncReason): void;
  onState(state: 'lost' | 'ready'): void;
  onError(error: unknown, source: 'listener' | 'watcher'): void;
  onMalformed(payload: string): void;
}

export interface WatchHub {
  add(prefix: string, listener: (change: StoreChange) => void, options: StoreWatchOptions): Unsubscribe;
  close(): void;
}

interface Watcher {
  readonly prefix: string;
  readonly listener: (change: StoreChange) => void;
  readonly onResync: StoreWatchOptions['onResync'];
}

/**
 * One listening connection per store, opened on the first watch and shared by every watcher. When
 * it drops, a pool lends a new one after `reconnectMs` (on the store's clock) and every watcher is
 * told to resync once LISTEN is live again.
 */
export function createWatchHub(
  db: Db,
  channel: string,
  clock: Clock,
  reconnectMs: number,
  hooks: HubHooks,
): WatchHub {
  const watchers = new Set<Watcher>();
  let listening: Listening | undefined;
  let started = false;
  let closed = false;
  let live = false;
  let everLive = false;
  let timer: TimerHandle | undefined;

  function dispatch(payload: string): void {
    const change = decodeChange(payload);
    if (change === undefined) {
      hooks.onMalformed(payload);
      return;
    }
    for (const watcher of [...watchers]) {
      if (!change.key.startsWith(watcher.prefix)) continue;
      try {
        watcher.listener(change);
      } catch (error) {
        hooks.onError(error, 'watcher');
      }
    }
  }

  function resync(targets: Iterable<Watcher>, reason: PostgresResyncReason): void {
    for (const watcher of [...targets]) {
      if (!watchers.has(watcher)) continue;
      try {
        watcher.onResync?.({ prefix: watcher.prefix, reason });
      } catch (error) {
        hooks.onError(error, 'watcher');
      }
    }
  }

  function lost(error: unknown): void {
    listening = undefined;
    if (closed) return;
    if (live) {
      live = false;
      hooks.onState('lost');
    }
    hooks.onError(error, 'listener');
    if (db.canReconnect) timer = clock.setTimeout(connect, reconnectMs, { background: true });
  }

  function connect(): void {
    timer = undefined;
    db.listen(channel, { onPayload: dispatch, onLost: lost }).then(
      (handle) => {
        if (closed) {
          handle.stop();
          return;
        }
        listening = handle;
        const reason: PostgresResyncReason = everLive ? 'reconnected' : 'subscribed';
        if (everLive) hooks.onState('ready');
        live = true;
        everLive = true;
        hooks.onResync(reason);
        resync(watchers, reason);
      },
      lost, // schedules the next attempt
    );
  }

  return {
    add(prefix, listener, options) {
      const watcher: Watcher = { prefix, listener, onResync: options.onResync };
      watchers.add(watcher);
      if (!started) {
        started = true;
        connect();
      } else if (live) {
        // A watcher added to a live subscription hears every later change; tell it so.
        queueMicrotask(() => resync([watcher], 'subscribed'));
      }
      return () => {
        watchers.delete(watcher);
      };
    },
    close() {
      closed = true;
      watchers.clear();
      clock.clearTimeout(timer);
      listening?.stop();
      listening = undefined;
      live = false;
    },
  };
}

const VERSION = /^[1-9][0-9]{0,15}$/;

/** Parses `s|<version>|<key>`, `d||<key>` or `x||<key>` (the key as `encodeStoreKey` wrote it). */
export function decodeChange(payload: string): StoreChange | undefined {
  const bar = payload.indexOf('|', 2);
  if (payload[1] !== '|' || bar < 0) return undefined;
  const version = payload.slice(2, bar);
  let key: string;
  try {
    key = decodeStoreKey(payload.slice(bar + 1));
  } catch {
    return undefined;
  }
  if (payload[0] === 's' && VERSION.test(version)) return { key, version: Number(version), kind: 'set' };
  if (payload[0] === 'd' && version === '') return { key, version: null, kind: 'delete' };
  if (payload[0] === 'x' && version === '') return { key, version: null, kind: 'expire' };
  return undefined;
}
