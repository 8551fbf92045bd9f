// Rollback and undo of a runner, under the head's lease: the checkpoint log and the head move
// together, and a rollback's `restore` runs before anything is written.
import type { Restored } from '@parley/checkpoints';
import type { Lease } from '@parley/core';
import type { StoredHead } from './head.js';
import { presentFor, putBack, type RunnerCore, writePresent } from './sync.js';
import type { TurnCheckpoint } from './types.js';

type Begun = { readonly stored: StoredHead; readonly lease: Lease };
type End = (lease: Lease) => Promise<void>;

/**
 * Rolls back to `id`: the host gets the kept state first (a `restore` that throws leaves the log,
 * the head and the host as they were), then the log moves and the head follows it under the lease.
 * @internal
 */
export async function moveBack<TState>(
  core: RunnerCore<TState>,
  { stored, lease }: Begun,
  id: string,
  options: { readonly ifVersion?: number | null } | undefined,
  end: End,
): Promise<Restored<TurnCheckpoint<TState>>> {
  const present = presentFor<TState>(core, stored.value);
  let ended = false;
  try {
    const loaded = await core.checkpoints.load(id);
    if (loaded.ok) {
      try {
        await putBack(core, loaded.state);
      } catch (err) {
        await putBack(core, present).catch(() => undefined); // best effort: the host's own state back
        throw err;
      }
    }
    const moved = await core.checkpoints.rollback(id, present, options);
    if (!moved.ok) {
      if (loaded.ok) await putBack(core, present);
      return moved;
    }
    if (!loaded.ok) await putBack(core, moved.state);
    await writePresent(core, moved.state, lease, true);
    ended = true;
    core.onLog?.(moved.log);
    return moved;
  } finally {
    if (!ended) await end(lease);
  }
}

/** Undoes a pending rollback: the log moves, the head follows under the lease, then the host. @internal */
export async function moveForward<TState>(
  core: RunnerCore<TState>,
  { lease }: Begun,
  options: { readonly ifVersion?: number | null } | undefined,
  end: End,
): Promise<Restored<TurnCheckpoint<TState>>> {
  let ended = false;
  try {
    const moved = await core.checkpoints.undo(options);
    if (!moved.ok) return moved;
    await writePresent(core, moved.state, lease, true);
    ended = true;
    core.onLog?.(moved.log);
    await putBack(core, moved.state); // the head is committed: a throw here heals at the next turn
    return moved;
  } finally {
    if (!ended) await end(lease);
  }
}
