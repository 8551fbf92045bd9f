// Snapshots a crash leaves unnamed: a process that dies between a snapshot write and the log write
// (or between the log write and the deletes after it) must not leave records that live for ever.
import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { delegating } from '../../../../tests/support/stores.js';
import { createCheckpoints } from '../src/index.js';
import { type Game, play } from './helpers.js';

/**
 * The memory store behind a wrapper that can stop the process at a write: the call never returns, so
 * nothing after it runs (no clean-up, no catch), as when the process dies there. Its listing can be
 * made to fail instead.
 */
function crashable() {
  const clock = createManualClock({ now: 1_000 });
  const inner = createMemoryStore({ clock });
  const faults = { logWrite: false, deletes: false, list: false };
  const hang = (): Promise<never> => new Promise<never>(() => {});
  const store: Store = {
    ...delegating(inner),
    delete: (key) => (faults.deletes ? hang() : inner.delete(key)),
    compareAndSet: (key, expected, value, options) =>
      faults.logWrite && key === 'g:checkpoints'
        ? hang()
        : inner.compareAndSet(key, expected, value, options),
    list: (prefix) => {
      if (faults.list) throw new Error('the listing failed');
      return inner.list(prefix);
    },
  };
  const open = () => createCheckpoints<Game>({ store, clock, keyPrefix: 'g:', maxCheckpoints: 3 });
  const keys = async (prefix: string): Promise<string[]> => {
    const found: string[] = [];
    for await (const entry of inner.list(prefix)) found.push(entry.key);
    return found.sort();
  };
  const named = async (): Promise<string[]> => {
    const log = await inner.get('g:checkpoints');
    type Named = { ref: string; checkpoints: { ref: string }[] };
    const data = (log as { data: { checkpoints: { ref: string }[]; undo: Named | null } }).data;
    const { undo } = data;
    const refs = [...data.checkpoints, ...(undo === null ? [] : [undo, ...undo.checkpoints])].map(
      (c) => c.ref,
    );
    return [...new Set(refs)].sort();
  };
  /** Runs `call` until the process dies at `where` (the call never returns); the next process has no fault. */
  const diesAt = async (where: 'logWrite' | 'deletes', call: () => Promise<unknown>): Promise<void> => {
    faults[where] = true;
    await dies(call());
    faults[where] = false;
  };
  return { inner, faults, open, keys, named, diesAt };
}

/** Lets a call run up to the write it stops at (one that never returns, or a gate). */
async function dies(call: Promise<unknown>): Promise<void> {
  void call;
  for (let i = 0; i < 20; i++) await new Promise((next) => setImmediate(next));
}

describe('snapshots a crash leaves unnamed', () => {
  it('are deleted by the first take after a restart when the process died before the log write', async () => {
    const { open, keys, named, diesAt } = crashable();
    const first = open();
    await play(first, 2);
    await diesAt('logWrite', () => first.take('turn_3', { hp: 3, at: 'x' }));
    // the snapshot of turn_3 was written, and no log names it
    expect(await keys('g:checkpoint:')).toHaveLength(4);

    const second = open(); // the restart
    expect(await second.take('turn_3', { hp: 3, at: 'x' })).toMatchObject({ ok: true });
    expect(await keys('g:checkpoint:')).toEqual(await named());
    expect(await second.load('turn_1')).toMatchObject({ ok: true, state: { hp: 11, at: 'room_1' } });
  });

  it('are deleted when the process died after the log write, before it deleted what the log dropped', async () => {
    const { open, keys, named, diesAt } = crashable();
    const first = open();
    await play(first, 2);
    await diesAt('deletes', () => first.take('turn_3', { hp: 3, at: 'x' }));
    expect(await keys('g:checkpoint:')).toHaveLength(4); // turn_0's snapshot, dropped from the log, is left

    await open().take('turn_4', { hp: 4, at: 'y' });
    expect(await keys('g:checkpoint:')).toEqual((await named()).filter((k) => k.includes('checkpoint:')));
    expect(await keys('g:checkpoint:')).toHaveLength(3);
  });

  it('deletes the present a rollback kept when the process died before the rollback was logged', async () => {
    const { open, keys, diesAt } = crashable();
    const first = open();
    await play(first, 2);
    await diesAt('logWrite', () => first.rollback('turn_0', { hp: 99, at: 'now' }));
    expect(await keys('g:undo:')).toHaveLength(1);

    await open().take('turn_3', { hp: 3, at: 'x' });
    expect(await keys('g:undo:')).toEqual([]);
  });

  it('keeps the present a pending rollback kept and the checkpoints it hid', async () => {
    const { open, keys, named } = crashable();
    const first = open();
    await play(first, 2);
    expect(await first.rollback('turn_1', { hp: 99, at: 'now' })).toMatchObject({ ok: true });
    const second = open();
    // a second rollback while the first is pending keeps its undo: second's first write, then its sweep
    expect(await second.rollback('turn_0', { hp: 11, at: 'room_1' })).toMatchObject({ ok: true });
    expect([...(await keys('g:checkpoint:')), ...(await keys('g:undo:'))].sort()).toEqual(await named());
    expect(await second.undo()).toMatchObject({ ok: true, id: 'turn_2', state: { hp: 99, at: 'now' } });
    expect(await second.load('turn_2')).toMatchObject({ ok: true, state: { hp: 12, at: 'room_2' } });
  });

  it('keeps the snapshot of a take in flight on another replica, which its log write then names', async () => {
    const { inner, open } = crashable();
    await play(open(), 1);
    const gate = () => {
      let open = (): void => {};
      const shut = new Promise<void>((done) => {
        open = done;
      });
      return { shut, open };
    };
    const listing = gate(); // b's sweep waits here, after b's log write
    const written = gate(); // a's take waits here, between its snapshot write and its log write
    const wrap = (over: Partial<Store>): Store => ({ ...delegating(inner), ...over });
    const clock = createManualClock({ now: 1_000 });
    const make = (store: Store) =>
      createCheckpoints<Game>({ store, clock, keyPrefix: 'g:', maxCheckpoints: 3 });
    const b = make(
      wrap({
        async *list(prefix) {
          await listing.shut;
          yield* inner.list(prefix);
        },
      }),
    );
    const a = make(
      wrap({
        async set(key, value, options) {
          const version = await inner.set(key, value, options);
          await written.shut;
          return version;
        },
      }),
    );
    const bTakes = b.take('turn_2', { hp: 2, at: 'b' }); // writes the log, then sweeps
    await dies(bTakes); // up to the gate before the listing
    const aTakes = a.take('turn_3', { hp: 3, at: 'a' }); // reads b's log, writes its snapshot
    await dies(aTakes);
    listing.open();
    expect(await bTakes).toMatchObject({ ok: true });
    written.open();
    expect(await aTakes).toMatchObject({ ok: true });
    expect(await a.load('turn_3')).toMatchObject({ ok: true, state: { hp: 3, at: 'a' } });
  });

  it('leaves records it did not write: another log under the same prefix, other kinds, older snapshots', async () => {
    const { inner, open, keys } = crashable();
    const nested = createCheckpoints<Game>({ store: inner, keyPrefix: 'g:checkpoint:x:', maxCheckpoints: 3 });
    await nested.take('n_0', { hp: 1, at: 'n' });
    await inner.set('g:checkpoint:mine', { kind: 'host.thing', basis: 0 });
    // a snapshot written before snapshots named their log (no `log`, no `basis`): its age is unknown
    await inner.set('g:checkpoint:old:abc', {
      kind: 'parley.checkpoint',
      id: 'old',
      state: { hp: 0, at: '' },
    });
    const before = await keys('g:checkpoint:');
    const first = open();
    await play(first, 1);
    await open().take('turn_2', { hp: 2, at: 'z' });
    const after = await keys('g:checkpoint:');
    for (const key of before) expect(after).toContain(key);
    expect(await nested.load('n_0')).toMatchObject({ ok: true, state: { hp: 1, at: 'n' } });
  });

  it('does not fail a take when the listing fails, and sweeps at the next take', async () => {
    const { faults, open, keys, named, diesAt } = crashable();
    const first = open();
    await play(first, 1);
    await diesAt('logWrite', () => first.take('turn_2', { hp: 2, at: 'z' }));
    const second = open();
    faults.list = true;
    expect(await second.take('turn_2', { hp: 2, at: 'z' })).toMatchObject({ ok: true });
    expect(await keys('g:checkpoint:')).toHaveLength(4); // the orphan is still there
    faults.list = false;
    expect(await second.take('turn_3', { hp: 3, at: 'w' })).toMatchObject({ ok: true });
    expect(await keys('g:checkpoint:')).toEqual(await named());
  });
});
