import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCheckpoints } from '../src/index.js';
import type { Game } from './helpers.js';

describe('a restart', () => {
  it('keeps the log, a pending rollback and its undo across processes over one store', async () => {
    const clock = createManualClock({ now: 0 });
    const store = createMemoryStore({ clock });
    const open = () => createCheckpoints<Game>({ store, clock, keyPrefix: 'camp:', maxCheckpoints: 3 });

    const first = open();
    for (let i = 0; i < 4; i++) await first.take(`turn_${i}`, { hp: 10 - i, at: `room_${i}` });
    await first.rollback('turn_2', { hp: 7, at: 'room_3' });
    // the process dies; nothing in memory survives
    const second = open();
    const log = await second.log();
    expect(log.ok && [log.checkpoints.map((c) => c.id), log.rollback]).toEqual([
      ['turn_1', 'turn_2'],
      { fromId: 'turn_3', toId: 'turn_2', canUndo: true },
    ]);
    expect(await second.undo()).toMatchObject({ ok: true, state: { hp: 7, at: 'room_3' } });

    await second.rollback('turn_1', { hp: 7, at: 'room_3' });
    await second.commit();
    const third = open();
    expect(await third.undo()).toMatchObject({ ok: false, code: 'undo_unavailable' });
    expect(await third.load('turn_1')).toMatchObject({ ok: true, state: { hp: 9, at: 'room_1' } });
  });
});
