// `take` starts from the log this process last read or wrote instead of reading it again. On a store
// the kernel reaches only through promises (Redis, PostgreSQL), that read was a round trip on every
// take. The log write's compare-and-set still decides: a log that moved since is read and the take
// tried once more, and an id the held log names is answered from a fresh read only.
import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCheckpoints } from '../src/index.js';
import { type Game, ids } from './helpers.js';

/** A memory store reached only through its promises (as a remote one is), counting reads by key. */
function remoteLike() {
  const clock = createManualClock({ now: 1_000 });
  const inner = createMemoryStore({ clock });
  const reads: string[] = [];
  const store = Object.create(inner) as Store;
  store.getEntry = (key) => {
    reads.push(key);
    return inner.getEntry(key);
  };
  store.get = (key) => {
    reads.push(key);
    return inner.get(key);
  };
  const open = () => createCheckpoints<Game>({ store, clock, keyPrefix: 'g:', maxCheckpoints: 3 });
  return { store, reads, open };
}

/** Every snapshot key under the prefix. */
async function snapshots(store: Store): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of store.list('g:checkpoint:')) keys.push(entry.key);
  return keys.sort();
}

describe('take on a store reached through promises', () => {
  it('writes a checkpoint without reading the log it holds', async () => {
    const { reads, open } = remoteLike();
    const checkpoints = open();
    expect((await checkpoints.take('turn_0', { hp: 10, at: 'gate' })).ok).toBe(true);
    reads.length = 0;
    for (let i = 1; i <= 4; i++) {
      const taken = await checkpoints.take(`turn_${i}`, { hp: 10 + i, at: 'gate' });
      expect(taken.ok && taken.log.checkpoints.map((c) => c.id).at(-1)).toBe(`turn_${i}`);
    }
    expect(reads.filter((key) => key === 'g:checkpoints')).toEqual([]);
    const log = await checkpoints.log();
    expect(log.ok && ids(log)).toEqual(['turn_2', 'turn_3', 'turn_4']);
  });

  it('reads the log again and lands when another process moved it, leaving no snapshot unnamed', async () => {
    const { store, open } = remoteLike();
    const a = open();
    const b = open();
    expect((await a.take('a_0', { hp: 1, at: 'a' })).ok).toBe(true);
    expect((await b.take('b_0', { hp: 2, at: 'b' })).ok).toBe(true); // a's held log is now behind
    const taken = await a.take('a_1', { hp: 3, at: 'a' });
    expect(taken.ok && taken.log.checkpoints.map((c) => c.id)).toEqual(['a_0', 'b_0', 'a_1']);
    const log = await b.log();
    expect(log.ok && ids(log)).toEqual(['a_0', 'b_0', 'a_1']);
    expect(await snapshots(store)).toEqual(log.ok ? log.checkpoints.map((c) => c.ref).sort() : []);
    const loaded = await b.load('a_1');
    expect(loaded.ok && loaded.state).toEqual({ hp: 3, at: 'a' });
  });

  it('answers an id its held log names from a fresh read: one dropped since is taken again', async () => {
    const { store, open } = remoteLike();
    const a = open();
    const b = open();
    expect((await a.take('x', { hp: 5, at: 'x' })).ok).toBe(true);
    for (const id of ['y', 'z', 'w']) expect((await b.take(id, { hp: 6, at: id })).ok).toBe(true); // x dropped
    const again = await a.take('x', { hp: 5, at: 'x' });
    expect(again.ok && again.log.checkpoints.map((c) => c.id)).toEqual(['z', 'w', 'x']);
    const loaded = await b.load('x');
    expect(loaded.ok && loaded.state).toEqual({ hp: 5, at: 'x' });
    const log = await b.log();
    expect(await snapshots(store)).toEqual(log.ok ? log.checkpoints.map((c) => c.ref).sort() : []);
    // still kept with the same content: accepted again without a write; with other content: refused
    expect((await a.take('x', { hp: 5, at: 'x' })).ok).toBe(true);
    expect(await a.take('x', { hp: 9, at: 'x' })).toMatchObject({ ok: false, code: 'duplicate_id' });
  });
});
