import { createManualClock, createMemoryStore } from '@parley/core';
import { createCheckpoints, type CheckpointsOptions } from '../src/index.js';

export type Game = { readonly hp: number; readonly at: string };

export function setup(options: Partial<CheckpointsOptions> = {}) {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  const checkpoints = createCheckpoints<Game>({
    store,
    clock,
    keyPrefix: 'g:',
    maxCheckpoints: 5,
    ...options,
  });
  return { clock, store, checkpoints };
}

/** Takes turn_0 … turn_n with hp = 10 + i. */
export async function play(checkpoints: ReturnType<typeof setup>['checkpoints'], n: number): Promise<void> {
  for (let i = 0; i <= n; i++) {
    const taken = await checkpoints.take(`turn_${i}`, { hp: 10 + i, at: `room_${i}` });
    if (!taken.ok) throw new Error(taken.message);
  }
}

export const ids = (log: { readonly checkpoints: readonly { readonly id: string }[] }): string[] =>
  log.checkpoints.map((c) => c.id);
