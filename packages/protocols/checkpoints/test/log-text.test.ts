// The log's text is written from each entry's text, serialised once per entry (issue 36): a take
// serialises only the entry it adds. What is stored reads back as the log, in this process and in a
// new one, through takes, drops, rollbacks, undos and commits; callers' copies carry nothing extra.
import { createCheckpoints } from '../src/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ids, play, setup } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The log as a new process on the same store reads it: ids, labels and the rollback. */
async function readFresh(store: ReturnType<typeof setup>['store'], clock: ReturnType<typeof setup>['clock']) {
  const fresh = createCheckpoints({ store, clock, keyPrefix: 'g:', maxCheckpoints: 5 });
  const log = await fresh.log();
  if (!log.ok) throw new Error(log.message);
  return { ids: ids(log), labels: log.checkpoints.map((c) => c.label), rollback: log.rollback, fresh };
}

/** The stored log record's data, as the store gives it back. */
async function storedLog(store: ReturnType<typeof setup>['store']) {
  const entry = await store.getEntry('g:checkpoints');
  if (entry === undefined) throw new Error('no log stored');
  return (entry.value as { data: { checkpoints: { id: string }[] } }).data;
}

describe("the log's stored text", () => {
  it('serialises each entry once, however many takes keep it', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 2);
    const stringify = vi.spyOn(JSON, 'stringify');
    await play(checkpoints, 6); // turn_0 … turn_6 again: the first three are kept, four are new
    const entryWrites = stringify.mock.calls.filter(([value]) => {
      const keys = typeof value === 'object' && value !== null ? Object.keys(value) : [];
      return keys.join() === 'id,at,label,ref';
    });
    expect(entryWrites.map(([value]) => (value as { id: string }).id)).toEqual([
      'turn_3',
      'turn_4',
      'turn_5',
      'turn_6',
    ]);
  });

  it('reads back as the log in a new process, after takes and drops past the cap', async () => {
    const { store, clock, checkpoints } = setup();
    await play(checkpoints, 7);
    const read = await readFresh(store, clock);
    expect(read.ids).toEqual(['turn_3', 'turn_4', 'turn_5', 'turn_6', 'turn_7']);
    expect(read.labels).toEqual(read.ids);
    const log = await checkpoints.log();
    expect(log.ok && ids(log)).toEqual(read.ids);
    expect((await storedLog(store)).checkpoints.map((c) => c.id)).toEqual(read.ids);
  });

  it('keeps a rollback and the checkpoints it hid, undoes it and commits it, as a new process reads them', async () => {
    const { store, clock, checkpoints } = setup();
    await play(checkpoints, 3);
    const back = await checkpoints.rollback('turn_1', { hp: 99, at: 'now' });
    expect(back.ok).toBe(true);
    let read = await readFresh(store, clock);
    expect(read.ids).toEqual(['turn_0', 'turn_1']);
    expect(read.rollback).toEqual({ fromId: 'turn_3', toId: 'turn_1', canUndo: true });
    const undone = await read.fresh.undo(); // the hidden checkpoints come back from the stored text
    expect(undone.ok && undone.state).toEqual({ hp: 99, at: 'now' });
    read = await readFresh(store, clock);
    expect(read.ids).toEqual(['turn_0', 'turn_1', 'turn_2', 'turn_3']);
    expect((await checkpoints.rollback('turn_0', { hp: 1, at: 'x' })).ok).toBe(true);
    expect((await checkpoints.commit()).ok).toBe(true);
    read = await readFresh(store, clock);
    expect(read.ids).toEqual(['turn_0']);
    expect(read.rollback).toEqual({ fromId: 'turn_3', toId: 'turn_0', canUndo: false });
  });

  it("hands callers plain copies: no kept text on a returned checkpoint or the log's entries", async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 1);
    const taken = await checkpoints.take('turn_2', { hp: 3, at: 'hall' });
    if (!taken.ok) throw new Error(taken.message);
    await checkpoints.take('turn_3', { hp: 4, at: 'hall' }); // turn_2's text is kept by now
    const log = await checkpoints.log();
    if (!log.ok) throw new Error(log.message);
    for (const entry of [taken.checkpoint, ...log.checkpoints]) {
      expect(Object.getOwnPropertySymbols(entry)).toEqual([]);
      expect(Object.getOwnPropertyNames(entry)).toEqual(['id', 'at', 'label', 'ref']);
    }
    expect(log.checkpoints[2]).toEqual({ ...taken.checkpoint });
  });
});
