import { isParleyError, type JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCheckpoints } from '../src/index.js';
import { ids, play, setup } from './helpers.js';

describe('take', () => {
  it('keeps a snapshot per id with its time and label', async () => {
    const { checkpoints, store, clock } = setup();
    const taken = await checkpoints.take('turn_0', { hp: 10, at: 'gate' }, { label: 'campaign start' });
    expect(taken).toMatchObject({
      ok: true,
      checkpoint: { id: 'turn_0', at: clock.now(), label: 'campaign start' },
      dropped: [],
    });
    const ref = taken.ok ? taken.checkpoint.ref : '';
    expect(ref).toMatch(/^g:checkpoint:turn_0:/);
    expect(await store.get(ref)).toEqual({
      kind: 'parley.checkpoint',
      id: 'turn_0',
      state: { hp: 10, at: 'gate' },
      log: 'g:checkpoints', // the log it belongs to, and the log's rev it was written against
      basis: 0,
    });
  });

  it('gives every snapshot a key of its own, in one instance and across instances on one store', async () => {
    const { checkpoints, store, clock } = setup();
    const other = createCheckpoints<{ hp: number }>({ store, clock, keyPrefix: 'g:', maxCheckpoints: 5 });
    const refs: string[] = [];
    for (const [i, writer] of [checkpoints, other, checkpoints, other].entries()) {
      const taken = await writer.take(`turn_${i}`, { hp: i, at: 'x' });
      refs.push(taken.ok ? taken.checkpoint.ref : '');
      // the same id taken again with other content (a racing writer's state) is refused, never overwritten
      expect((await writer.take(`turn_${i}`, { hp: -1, at: 'y' })).ok).toBe(false);
    }
    expect(new Set(refs).size).toBe(4);
    // a random part made once per instance and a count: shorter than a fresh nanoid per snapshot
    for (const ref of refs) expect(ref).toMatch(/^g:checkpoint:turn_\d:[\w-]{10}[0-9a-z]+$/);
  });

  it('reads, rolls back to and drops snapshots whose keys end in the former 21-character nanoid', async () => {
    const { checkpoints: before, store, clock } = setup({ generateId: () => 'V1StGXR8_Z5jdHi6B-myT' });
    await play(before, 1);
    const checkpoints = createCheckpoints<{ hp: number; at: string }>({
      store,
      clock,
      keyPrefix: 'g:',
      maxCheckpoints: 2,
    });
    expect((await checkpoints.load('turn_0')).ok && (await checkpoints.load('turn_0'))).toMatchObject({
      state: { hp: 10, at: 'room_0' },
    });
    const back = await checkpoints.rollback('turn_0', { hp: 0, at: 'now' });
    expect(back.ok && back.state).toEqual({ hp: 10, at: 'room_0' });
    await checkpoints.commit();
    const taken = await checkpoints.take('turn_2', { hp: 12, at: 'room_2' });
    expect(taken.ok && taken.dropped).toEqual([]);
    const next = await checkpoints.take('turn_3', { hp: 13, at: 'room_3' });
    expect(next.ok && next.dropped).toEqual(['turn_0']);
    expect(await store.get('g:checkpoint:turn_0:V1StGXR8_Z5jdHi6B-myT')).toBeUndefined();
  });

  it('drops the oldest beyond the cap, from the log and the store', async () => {
    const { checkpoints, store } = setup({ maxCheckpoints: 2 });
    await play(checkpoints, 1);
    const taken = await checkpoints.take('turn_2', { hp: 0, at: 'x' });
    expect(taken.ok && taken.dropped).toEqual(['turn_0']);
    const log = await checkpoints.log();
    expect(log.ok && ids(log)).toEqual(['turn_1', 'turn_2']);
    expect(await store.get('g:checkpoint:turn_0')).toBeUndefined();
    expect(await checkpoints.load('turn_0')).toMatchObject({ ok: false, code: 'no_checkpoint' });
  });

  it('reads a cap given as a function at every take', async () => {
    let cap = 3;
    const { checkpoints } = setup({ maxCheckpoints: async () => cap });
    await play(checkpoints, 3);
    cap = 1;
    const taken = await checkpoints.take('turn_4', { hp: 1, at: 'y' });
    expect(taken.ok && taken.dropped).toEqual(['turn_1', 'turn_2', 'turn_3']);
    cap = 0;
    expect(await checkpoints.take('turn_5', { hp: 1, at: 'y' })).toMatchObject({
      ok: false,
      code: 'disabled',
    });
  });

  it('accepts the same id with the same content again, and refuses other content as duplicate_id', async () => {
    const { checkpoints } = setup();
    const first = await checkpoints.take('turn_0', { hp: 10, at: 'gate' });
    const again = await checkpoints.take('turn_0', { at: 'gate', hp: 10 });
    expect(again.ok && first.ok && again.log.version === first.log.version).toBe(true);
    expect(await checkpoints.take('turn_0', { hp: 9, at: 'gate' })).toMatchObject({
      ok: false,
      code: 'duplicate_id',
    });
  });

  it('refuses disabled when maxCheckpoints is 0', async () => {
    const { checkpoints } = setup({ maxCheckpoints: 0 });
    expect(await checkpoints.take('turn_0', { hp: 1, at: 'a' })).toMatchObject({
      ok: false,
      code: 'disabled',
    });
    expect(await checkpoints.rollback('turn_0', { hp: 1, at: 'a' })).toMatchObject({
      ok: false,
      code: 'disabled',
    });
  });
});

describe('rollback and undo', () => {
  it('returns an earlier state and keeps the present for undo', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 3);
    const back = await checkpoints.rollback('turn_1', { hp: 13, at: 'room_3' });
    expect(back).toMatchObject({ ok: true, id: 'turn_1', state: { hp: 11, at: 'room_1' } });
    expect(back.ok && back.log.rollback).toEqual({ fromId: 'turn_3', toId: 'turn_1', canUndo: true });
    expect(back.ok && ids(back.log)).toEqual(['turn_0', 'turn_1']);
    const undone = await checkpoints.undo();
    expect(undone).toMatchObject({ ok: true, id: 'turn_3', state: { hp: 13, at: 'room_3' } });
    expect(undone.ok && [ids(undone.log), undone.log.rollback]).toEqual([
      ['turn_0', 'turn_1', 'turn_2', 'turn_3'],
      null,
    ]);
    expect(await checkpoints.undo()).toMatchObject({ ok: false, code: 'nothing_to_undo' });
  });

  it('rolls back further while pending and undoes to the present before the first rollback', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 3);
    await checkpoints.rollback('turn_2', { hp: 13, at: 'room_3' });
    const further = await checkpoints.rollback('turn_0', { hp: 12, at: 'room_2' });
    expect(further.ok && further.log.rollback).toEqual({ fromId: 'turn_3', toId: 'turn_0', canUndo: true });
    expect(await checkpoints.undo()).toMatchObject({ ok: true, state: { hp: 13, at: 'room_3' } });
  });

  it('refuses an unknown checkpoint and the latest one', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 1);
    expect(await checkpoints.rollback('turn_9', { hp: 0, at: '' })).toMatchObject({
      ok: false,
      code: 'no_checkpoint',
    });
    expect(await checkpoints.rollback('turn_1', { hp: 0, at: '' })).toMatchObject({
      ok: false,
      code: 'not_earlier',
    });
  });

  it('commits a rollback as a branch: no undo, the abandoned snapshots deleted', async () => {
    const { checkpoints, store } = setup();
    await play(checkpoints, 2);
    await checkpoints.rollback('turn_0', { hp: 12, at: 'room_2' });
    const commit = await checkpoints.commit();
    expect(commit).toMatchObject({ ok: true, committed: true });
    expect(commit.ok && commit.log.rollback).toEqual({ fromId: 'turn_2', toId: 'turn_0', canUndo: false });
    expect(await store.get('g:checkpoint:turn_1')).toBeUndefined();
    expect(await store.get('g:checkpoint:turn_2')).toBeUndefined();
    expect([...(await keys(store))].filter((k) => k.startsWith('g:undo'))).toEqual([]);
    expect(await checkpoints.undo()).toMatchObject({ ok: false, code: 'undo_unavailable' });
    expect(await checkpoints.commit()).toMatchObject({ ok: true, committed: false });
  });

  it('commits a pending rollback when the next checkpoint is taken', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 2);
    await checkpoints.rollback('turn_0', { hp: 12, at: 'room_2' });
    const taken = await checkpoints.take('turn_3', { hp: 1, at: 'branch' });
    expect(taken.ok && [ids(taken.log), taken.log.rollback?.canUndo]).toEqual([['turn_0', 'turn_3'], false]);
    expect(await checkpoints.take('turn_0', { hp: 10, at: 'room_0' })).toMatchObject({ ok: true });
  });

  it('loads a kept checkpoint without changing anything', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 1);
    const before = await checkpoints.log();
    const loaded = await checkpoints.load('turn_0');
    expect(loaded).toMatchObject({ ok: true, state: { hp: 10, at: 'room_0' } });
    expect(loaded.ok && before.ok && loaded.log.version === before.version).toBe(true);
  });
});

describe('compare-and-set', () => {
  it('refuses a rollback or undo whose ifVersion is behind the log', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 2);
    const log = await checkpoints.log();
    const version = log.ok ? (log.version as number) : 0;
    expect(await checkpoints.rollback('turn_0', { hp: 0, at: '' }, { ifVersion: version - 1 })).toMatchObject(
      {
        ok: false,
        code: 'conflict',
        message: expect.stringContaining('the log is at version'),
        version,
      },
    );
    const refused = await checkpoints.undo({ ifVersion: version - 1 });
    expect(refused.ok ? undefined : refused.reason).toBe(refused.ok ? '' : refused.message);
    const back = await checkpoints.rollback('turn_0', { hp: 0, at: '' }, { ifVersion: version });
    expect(back.ok).toBe(true);
    expect(await checkpoints.undo({ ifVersion: version })).toMatchObject({ ok: false, code: 'conflict' });
  });

  it('refuses conflict when another writer moves the log between read and write, and leaves no orphan', async () => {
    const { checkpoints, store, clock } = setup();
    await play(checkpoints, 1);
    let raced = 0;
    const other = createCheckpoints({ store, clock, keyPrefix: 'g:', maxCheckpoints: 5 });
    const racing = {
      ...store,
      compareAndSet: async (...args: Parameters<typeof store.compareAndSet>) => {
        raced += 1;
        await other.take(`turn_x${raced}`, { hp: 0, at: 'other' });
        return store.compareAndSet(...args);
      },
    };
    const loser = createCheckpoints({ store: racing, clock, keyPrefix: 'g:', maxCheckpoints: 5 });
    expect(await loser.take('turn_2', { hp: 1, at: 'a' })).toMatchObject({ ok: false, code: 'conflict' });
    expect(await store.get('g:checkpoint:turn_2')).toBeUndefined();
    expect(await loser.rollback('turn_0', { hp: 1, at: 'a' })).toMatchObject({ ok: false, code: 'conflict' });
    expect([...(await keys(store))].filter((k) => k.startsWith('g:undo'))).toEqual([]);
  });
});

describe('records read back', () => {
  it('refuses a corrupt log, a corrupt snapshot and a state failing the schema', async () => {
    const schema = z.object({ hp: z.number().int(), at: z.string() });
    const { checkpoints, store } = setup({ stateSchema: schema });
    await play(checkpoints, 2);
    const refOf = async (id: string) => {
      const log = await checkpoints.log();
      return (log.ok && log.checkpoints.find((c) => c.id === id)?.ref) || '';
    };
    await store.set(await refOf('turn_0'), { kind: 'parley.checkpoint', id: 'turn_1', state: {} });
    expect(await checkpoints.rollback('turn_0', { hp: 1, at: '' })).toMatchObject({
      ok: false,
      code: 'corrupt_record',
    });
    await store.set(await refOf('turn_1'), {
      kind: 'parley.checkpoint',
      id: 'turn_1',
      state: { hp: 1.5, at: '' },
    });
    expect(await checkpoints.load('turn_1')).toMatchObject({ ok: false, code: 'corrupt_record' });
    const corrupt: JsonValue[] = [
      { kind: 'other' },
      { kind: 'parley.checkpoints', format: 1, checkpoints: [], rollback: null, undo: null },
      ...[
        { rev: 0, checkpoints: [{ id: 1 }], rollback: null, undo: null },
        { rev: 0, checkpoints: [], rollback: { fromId: 1 }, undo: null },
        { rev: 0, checkpoints: [], rollback: null, undo: { ref: 3 } },
      ].map((data) => ({
        kind: 'parley.checkpoints',
        version: 2,
        data,
        lease: null,
        fence: 0,
        deadlineAt: null,
      })),
    ];
    for (const bad of corrupt) {
      await store.set('g:checkpoints', bad);
      expect(await checkpoints.log()).toMatchObject({ ok: false, code: 'corrupt_record' });
      for (const result of [
        await checkpoints.take('t', { hp: 1, at: '' }),
        await checkpoints.load('t'),
        await checkpoints.rollback('t', { hp: 1, at: '' }),
        await checkpoints.undo(),
        await checkpoints.commit(),
      ]) {
        expect(result).toMatchObject({ ok: false, code: 'corrupt_record' });
      }
    }
  });

  it('refuses an undo whose kept present is gone, and a take whose kept duplicate is unreadable', async () => {
    const { checkpoints, store } = setup();
    await play(checkpoints, 1);
    await checkpoints.rollback('turn_0', { hp: 1, at: '' });
    for await (const entry of store.list('g:undo')) await store.delete(entry.key);
    expect(await checkpoints.undo()).toMatchObject({ ok: false, code: 'corrupt_record' });
    await store.delete('g:checkpoint:turn_0');
    expect(await checkpoints.take('turn_0', { hp: 10, at: 'room_0' })).toMatchObject({
      ok: false,
      code: 'duplicate_id',
    });
  });
});

describe('options', () => {
  it('throws invalid_argument for a bad cap, one returned by a function, or an empty prefix', async () => {
    const { store } = setup();
    for (const maxCheckpoints of [-1, 1.5, 1_001]) {
      expect(() => createCheckpoints({ store, keyPrefix: 'g:', maxCheckpoints })).toThrow(/maxCheckpoints/);
    }
    expect(() => createCheckpoints({ store, keyPrefix: '' })).toThrow(/keyPrefix/);
    const later = createCheckpoints({ store, keyPrefix: 'g:', maxCheckpoints: () => 5_000 });
    const error = await later.take('t', 1).catch((err: unknown) => err);
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('keeps DEFAULT_MAX_CHECKPOINTS when no cap is given', async () => {
    const { store } = setup();
    const checkpoints = createCheckpoints<number>({ store, keyPrefix: 'd:' });
    for (let i = 0; i < 21; i++) await checkpoints.take(`t${i}`, i);
    const log = await checkpoints.log();
    expect(log.ok && log.checkpoints.length).toBe(20);
  });
});

async function keys(store: ReturnType<typeof setup>['store']): Promise<Set<string>> {
  const all = new Set<string>();
  for await (const entry of store.list('')) all.add(entry.key);
  return all;
}
