// The @example of every exported function and constant, with assertions.
import { createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  CHECKPOINT_REFUSAL_CODES,
  CHECKPOINTS_ERROR_CODES,
  CheckpointsError,
  createCheckpoints,
  DEFAULT_MAX_CHECKPOINTS,
  MAX_CHECKPOINTS,
} from '../src/index.js';

describe('TSDoc examples', () => {
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
    expect([error instanceof CheckpointsError, isParleyError(error, 'invalid_options')]).toEqual([
      true,
      true,
    ]);
  });

  it('constants', () => {
    expect(CHECKPOINTS_ERROR_CODES).toEqual(['invalid_options']);
    expect(CHECKPOINT_REFUSAL_CODES.includes('undo_unavailable')).toBe(true);
    expect(MAX_CHECKPOINTS).toBe(1000);
    expect(DEFAULT_MAX_CHECKPOINTS).toBe(20);
  });
});
