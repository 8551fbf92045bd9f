import type { Store } from '@parley/core';
import { ConflictError } from '../errors.js';
import { isRecord } from './checks.js';

/** Compare-and-set attempts before a contended count gives up with `store_failed`. */
const MAX_WRITE_TRIES = 10;

/**
 * The revise rounds of one task, kept in a Store so they survive a restart of the pipeline: every
 * gate instance reading the same key counts the same rounds. The value is `{ revisions }`.
 */
export interface StoredRounds {
  /** The rounds already used by this task (0 when none are stored). */
  load(): Promise<number>;
  /** Takes one more round, or answers `undefined` when `max` are already used. */
  claim(max: number): Promise<number | undefined>;
}

export function storedRounds(store: Store, key: string, ttlMs: number): StoredRounds {
  const read = async (): Promise<{ readonly used: number; readonly version: number | null }> => {
    const entry = await guard(() => store.getEntry(key), key, 'read');
    if (entry === undefined) return { used: 0, version: null };
    const used = isRecord(entry.value) ? entry.value['revisions'] : undefined;
    if (typeof used !== 'number' || !Number.isInteger(used) || used < 0) {
      throw new ConflictError('store_failed', `The stored revise count of "${key}" is corrupt`, {
        details: { key, problem: 'corrupt_value' },
      });
    }
    return { used, version: entry.version };
  };
  return {
    load: async () => (await read()).used,
    async claim(max) {
      for (let tries = 0; tries < MAX_WRITE_TRIES; tries++) {
        const { used, version } = await read();
        if (used >= max) return undefined;
        const written = await guard(
          () => store.compareAndSet(key, version, { revisions: used + 1 }, { ttlMs }),
          key,
          'write',
        );
        if (written.ok) return used + 1;
      }
      throw new ConflictError('store_failed', `The revise count of "${key}" kept changing under its writes`, {
        details: { key, problem: 'contended', tries: MAX_WRITE_TRIES },
      });
    },
  };
}

async function guard<T>(operation: () => Promise<T>, key: string, what: 'read' | 'write'): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw new ConflictError('store_failed', `The store failed to ${what} the revise count of "${key}"`, {
      cause: error,
      details: { key, problem: `${what}_failed` },
    });
  }
}
