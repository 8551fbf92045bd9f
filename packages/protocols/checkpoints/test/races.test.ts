// Two writers on one log: issue 31, reproduction 5 (racing rollbacks), and records of the old format.
import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { bindCheckpoints, createCheckpoints } from '../src/index.js';
import { type Game, play } from './helpers.js';

function two() {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  const make = () => createCheckpoints<Game>({ store, clock, keyPrefix: 'g:', maxCheckpoints: 5 });
  return { store, a: make(), b: make() };
}

describe('racing writers', () => {
  it('lets the winner of two racing rollbacks undo: the loser deletes only what it wrote (5)', async () => {
    const { a, b } = two();
    await play(a, 2);
    const present = { hp: 99, at: 'now' };
    const [x, y] = await Promise.all([a.rollback('turn_0', present), b.rollback('turn_1', present)]);
    expect([x.ok, y.ok].filter(Boolean)).toHaveLength(1);
    const winner = x.ok ? a : b;
    const undone = await winner.undo();
    expect(undone).toMatchObject({ ok: true, id: 'turn_2', state: present });
  });

  it('keeps the snapshot of a checkpoint two writers took at once', async () => {
    const { a, b } = two();
    const state = { hp: 1, at: 'x' };
    await Promise.all([a.take('turn_0', state), b.take('turn_0', state)]);
    expect(await a.load('turn_0')).toMatchObject({ ok: true, state });
  });

  it('refuses a log of the format before the kernel with corrupt_record, never overwriting it', async () => {
    const { store, a } = two();
    const old = { kind: 'parley.checkpoints', format: 1, checkpoints: [], rollback: null, undo: null };
    await store.set('g:checkpoints', old);
    expect(await a.take('turn_0', { hp: 1, at: 'x' })).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(await store.get('g:checkpoints')).toEqual(old);
  });
});

describe('a failing store', () => {
  it('rejects with the store’s error on a failed read, and store_failed on a failed log write', async () => {
    const { store, a } = two();
    await play(a, 0);
    const failing = { ...store, getEntry: async () => Promise.reject(new Error('read down')) };
    const reader = createCheckpoints<Game>({ store: failing, keyPrefix: 'g:' });
    await expect(reader.log()).rejects.toThrow('read down');
    const writer = createCheckpoints<Game>({
      store: {
        ...store,
        getEntry: (key) => store.getEntry(key),
        compareAndSet: async () => Promise.reject(new Error('write down')),
      },
      keyPrefix: 'g:',
    });
    await expect(writer.take('turn_1', { hp: 1, at: 'x' })).rejects.toMatchObject({ code: 'store_failed' });
  });

  it('refuses logs whose rollback or undo is malformed with corrupt_record', async () => {
    const { store, a } = two();
    const base = { rev: 0, checkpoints: [], rollback: null, undo: null };
    for (const data of [
      { ...base, rollback: { fromId: 'a', toId: 'b' } },
      { ...base, undo: { ref: 'r', checkpoints: 'x' } },
      { ...base, rev: 'x' },
    ]) {
      await store.set('g:checkpoints', {
        kind: 'parley.checkpoints',
        version: 2,
        data,
        lease: null,
        fence: 0,
        deadlineAt: null,
      });
      expect(await a.log()).toMatchObject({ ok: false, code: 'corrupt_record' });
    }
    await store.set('g:checkpoints', {
      kind: 'parley.checkpoints',
      version: 3,
      data: base,
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    expect(await a.log()).toMatchObject({ ok: false, code: 'record_version' });
  });
});

describe('bindCheckpoints and a restore that throws', () => {
  it('leaves the log as it was when restore throws during a rollback (8)', async () => {
    const { a } = two();
    let hp = 10;
    let broken = false;
    const bound = bindCheckpoints<Game>({
      checkpoints: a,
      capture: () => ({ hp, at: 'x' }),
      restore: (state) => {
        if (broken) throw new Error('restore broke');
        hp = state.hp;
      },
    });
    await bound.take('turn_0');
    hp = 4;
    await bound.take('turn_1');
    broken = true;
    await expect(bound.rollback('turn_0')).rejects.toThrow('restore broke');
    const log = await a.log();
    expect(log.ok && log.rollback).toBeNull();
    broken = false;
    expect(await bound.rollback('turn_0')).toMatchObject({ ok: true });
    expect(hp).toBe(10);
  });
});
