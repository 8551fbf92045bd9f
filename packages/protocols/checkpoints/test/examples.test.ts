// The @example of every exported function and constant, with assertions.
import { createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  CHECKPOINT_REFUSAL_CODES,
  CHECKPOINTS_ERROR_CODES,
  type BindCheckpointsOptions,
  type BoundCheckpoints,
  bindCheckpoints,
  CheckpointsError,
  createCheckpoints,
  DEFAULT_MAX_CHECKPOINTS,
  MAX_CHECKPOINTS,
} from '../src/index.js';

describe('TSDoc examples', () => {
  it('BindCheckpointsOptions and BoundCheckpoints', async () => {
    let hp = 10;
    const options: BindCheckpointsOptions<number> = {
      checkpoints: createCheckpoints<number>({ store: createMemoryStore(), keyPrefix: 'game:' }),
      capture: () => hp,
      restore: (state) => {
        hp = state;
      },
    };
    async function undoLast(checkpoints: BoundCheckpoints<number>): Promise<string> {
      const undone = await checkpoints.undo();
      return undone.ok ? `back to ${undone.id}` : undone.code;
    }
    const bound = bindCheckpoints(options);
    expect(await undoLast(bound)).toBe('nothing_to_undo');
    await bound.take('turn_1');
    hp = 4;
    await bound.take('turn_2');
    await bound.rollback('turn_1');
    expect(hp).toBe(10);
    expect(await undoLast(bound)).toBe('back to turn_2');
    expect(hp).toBe(4);
  });

  it('bindCheckpoints', async () => {
    let party = { hp: 18, at: 'old_road' };
    const seen: [number, boolean][] = [];
    const checkpoints = bindCheckpoints({
      checkpoints: createCheckpoints<typeof party>({ store: createMemoryStore(), keyPrefix: 'campaign:1:' }),
      capture: () => party,
      restore: (state) => {
        party = state;
      },
      onLog: (log) => seen.push([log.checkpoints.length, log.rollback?.canUndo ?? false]),
    });
    await checkpoints.take('turn_1');
    party = { hp: 12, at: 'ruined_keep' };
    await checkpoints.take('turn_2');
    await checkpoints.rollback('turn_1');
    expect(party).toEqual({ hp: 18, at: 'old_road' });
    await checkpoints.undo();
    expect(party).toEqual({ hp: 12, at: 'ruined_keep' });
    expect(seen).toEqual([
      [1, false],
      [2, false],
      [1, true],
      [2, false],
    ]);
  });

  it('createCheckpoints', async () => {
    const checkpoints = createCheckpoints<{ hp: number }>({
      store: createMemoryStore(),
      keyPrefix: 'game:1:',
      maxCheckpoints: 3,
    });
    await checkpoints.take('turn_1', { hp: 10 });
    await checkpoints.take('turn_2', { hp: 4 });

    const back = await checkpoints.rollback('turn_1', { hp: 4 });
    expect(back.ok && back.state).toEqual({ hp: 10 });
    const undone = await checkpoints.undo();
    expect(undone.ok && undone.state).toEqual({ hp: 4 });

    await checkpoints.rollback('turn_1', { hp: 4 });
    await checkpoints.commit();
    expect((await checkpoints.undo()).ok).toBe(false);
  });

  it('CheckpointsError', () => {
    let error: unknown;
    try {
      createCheckpoints({ store: createMemoryStore(), keyPrefix: 'game:', maxCheckpoints: -1 });
    } catch (err) {
      error = err;
    }
    expect([error instanceof CheckpointsError, isParleyError(error, 'invalid_argument')]).toEqual([
      true,
      true,
    ]);
  });

  it('constants', () => {
    expect(CHECKPOINTS_ERROR_CODES).toEqual(['invalid_argument', 'store_failed']);
    expect(CHECKPOINT_REFUSAL_CODES.includes('undo_unavailable')).toBe(true);
    expect(MAX_CHECKPOINTS).toBe(1000);
    expect(DEFAULT_MAX_CHECKPOINTS).toBe(20);
  });
});
