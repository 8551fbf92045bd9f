// The log this process last read or wrote stands for the next read while the memory store still
// holds its version (issue 36): counted in parses; what callers get is always their own copy.
import { createCheckpoints, type Checkpoint } from '../src/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ids, play, setup } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the log a process holds', () => {
  it('is read without parsing while the store still holds the version it wrote', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 2);
    const parse = vi.spyOn(JSON, 'parse');
    const log = await checkpoints.log();
    expect(log.ok && ids(log)).toEqual(['turn_0', 'turn_1', 'turn_2']);
    expect((await checkpoints.commit()).ok).toBe(true);
    expect(parse).not.toHaveBeenCalled();
  });

  it('is read again once another process wrote the log', async () => {
    const { clock, store, checkpoints } = setup();
    await play(checkpoints, 1);
    const other = createCheckpoints({ store, clock, keyPrefix: 'g:', maxCheckpoints: 5 });
    expect((await other.take('turn_9', { hp: 1, at: 'elsewhere' })).ok).toBe(true);
    const log = await checkpoints.log();
    expect(log.ok && ids(log)).toEqual(['turn_0', 'turn_1', 'turn_9']);
  });

  it('hands out copies: changing a returned log or checkpoint changes nothing held', async () => {
    const { checkpoints } = setup();
    await play(checkpoints, 1);
    const taken = await checkpoints.take('turn_2', { hp: 3, at: 'hall' });
    if (!taken.ok) throw new Error(taken.message);
    (taken.checkpoint as { label: string }).label = 'changed';
    (taken.log.checkpoints as Checkpoint[]).pop();
    const log = await checkpoints.log();
    expect(log.ok && ids(log)).toEqual(['turn_0', 'turn_1', 'turn_2']);
    expect(log.ok && log.checkpoints[2]?.label).toBe('turn_2');
  });
});
