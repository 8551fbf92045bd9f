// bindCheckpoints through the public API: capture on take and rollback, restore on rollback and
// undo, the log mirrored on every change, nothing restored on a refusal, a restore that throws,
// and a restarted host binding the same store.
import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { bindCheckpoints, type CheckpointLog, createCheckpoints } from '../src/index.js';
import type { Game } from './helpers.js';

function host(store: Store, restoreFails = false) {
  const clock = createManualClock({ now: 0 });
  const logs: CheckpointLog[] = [];
  const game = { state: { hp: 10, at: 'gate' } as Game, restores: 0 };
  const checkpoints = bindCheckpoints<Game>({
    checkpoints: createCheckpoints<Game>({ store, clock, keyPrefix: 'camp:', maxCheckpoints: 3 }),
    capture: () => game.state,
    restore: async (state) => {
      if (restoreFails) throw new Error('cannot put it back');
      game.restores += 1;
      game.state = state;
    },
    onLog: (log) => logs.push(log),
  });
  return { checkpoints, game, logs };
}

describe('bindCheckpoints', () => {
  it('captures, restores and mirrors the log; commit ends undo', async () => {
    const { checkpoints, game, logs } = host(createMemoryStore());
    await checkpoints.take('turn_1', { label: 'turn 1' });
    game.state = { hp: 4, at: 'market' };
    await checkpoints.take('turn_2');
    expect(await checkpoints.rollback('turn_1')).toMatchObject({ ok: true, id: 'turn_1' });
    expect(game.state).toEqual({ hp: 10, at: 'gate' });
    expect(logs.at(-1)?.rollback).toEqual({ fromId: 'turn_2', toId: 'turn_1', canUndo: true });
    expect(await checkpoints.commit()).toMatchObject({ ok: true, committed: true });
    expect(logs.at(-1)?.rollback).toMatchObject({ canUndo: false });
    expect(await checkpoints.undo()).toMatchObject({ ok: false, code: 'undo_unavailable' });
    expect(await checkpoints.commit()).toMatchObject({ ok: true, committed: false });
    expect(logs).toHaveLength(4); // take, take, rollback, the commit that ended it
    const log = await checkpoints.log();
    expect(log.ok && log.checkpoints.map((c) => [c.id, c.label])).toEqual([['turn_1', 'turn 1']]);
  });

  it('restores nothing and reports no log when a call is refused', async () => {
    const { checkpoints, game, logs } = host(createMemoryStore());
    expect(await checkpoints.rollback('turn_9')).toMatchObject({ ok: false, code: 'no_checkpoint' });
    expect(await checkpoints.undo()).toMatchObject({ ok: false, code: 'nothing_to_undo' });
    await checkpoints.take('turn_1');
    game.state = { hp: 1, at: 'pit' };
    expect(await checkpoints.take('turn_1')).toMatchObject({ ok: false, code: 'duplicate_id' });
    expect([game.restores, logs.length]).toEqual([0, 1]);
  });

  it('rejects with the restore error and leaves the log as it was: nothing is half-applied', async () => {
    const store = createMemoryStore();
    const failing = host(store, true);
    await failing.checkpoints.take('turn_1');
    failing.game.state = { hp: 2, at: 'cave' };
    await failing.checkpoints.take('turn_2');
    await expect(failing.checkpoints.rollback('turn_1')).rejects.toThrow('cannot put it back');
    // a restarted host on the same store finds no rollback: the log never moved
    const restarted = host(store);
    expect(await restarted.checkpoints.undo()).toMatchObject({ ok: false, code: 'nothing_to_undo' });
    const log = await restarted.checkpoints.log();
    expect(log.ok && log.checkpoints.map((c) => c.id)).toEqual(['turn_1', 'turn_2']);
  });
});
