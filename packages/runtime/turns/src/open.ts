import { copyWith } from '@parley/core';
import type { JsonValue, Lease } from '@parley/core';
import { HEAD, type Head } from './head.js';
import {
  catchUp,
  checkpoint,
  headOf,
  isLive,
  kernelFailure,
  presentOf,
  putBack,
  type RunnerCore,
  readHead,
} from './sync.js';
import type { TurnOpenResult, TurnCheckpoint } from './types.js';

/**
 * `open` of a runner: a fresh head and first checkpoint, or the stored present put back with what a
 * dead process left settled. @internal
 */
export async function openRunner<TState>(
  core: RunnerCore<TState>,
  first: () => TurnCheckpoint<TState>,
  label: (turn: number) => string,
  options: { readonly label?: string; readonly takeOver?: boolean },
): Promise<TurnOpenResult> {
  let created = false;
  let stored = await readHead(core);
  if (stored === undefined) {
    const present = first();
    const state = present.state as unknown as JsonValue; // what `capture` returned: plain JSON
    const fresh: Head = copyWith(present, { state, open: null, last: null, journal: [] });
    const made = await core.kernel.apply(
      core.headKey,
      HEAD,
      (head: Head | undefined) => {
        created = head === undefined;
        return { value: head ?? fresh, effects: [] }; // another process opened it first: keep its head
      },
      null,
    );
    const head = headOf(made, core.headKey);
    if (created) {
      core.synced.turnId = present.turnId; // the host holds the state it just gave
      await checkpoint(core, present, options.label ?? 'start');
      return { resumed: false, turn: 0, turnId: present.turnId };
    }
    stored = head;
  }
  let abandoned: string | undefined;
  let pending: { turnId: string; deadlineAt: number } | undefined;
  const live = isLive(core, stored);
  if (live && stored.value.open !== null && stored.lease !== null && options.takeOver !== true) {
    pending = { turnId: stored.value.open.turnId, deadlineAt: stored.lease.expiresAt };
  }
  let lease: Lease | undefined;
  if (!live || options.takeOver === true) {
    // the head is free (or taken over): catch up under its lease, dropping a turn a dead process left open
    const taken = await core.kernel.acquire(core.headKey, HEAD, {
      ttlMs: core.turnTimeoutMs,
      force: options.takeOver === true,
    });
    if (!taken.ok && taken.code !== 'lease_held' && taken.code !== 'write_conflict')
      throw kernelFailure(taken);
    if (taken.ok) {
      lease = taken.lease;
      stored = headOf({ ok: true, committed: taken.committed, effects: [] }, core.headKey);
      const open = stored.value.open;
      if (open !== null) {
        const cleared = await core.kernel.apply(
          core.headKey,
          HEAD,
          (head: Head | undefined) => ({ value: head && copyWith(head, { open: null }), effects: [] }),
          null,
          { lease },
        );
        stored = headOf(cleared, core.headKey);
        abandoned = open.turnId;
        core.events.emit('recovered', { turnId: open.turnId, action: 'abandoned' });
      }
    }
  }
  try {
    stored = await catchUp(core, stored, lease, true, label);
  } finally {
    if (lease !== undefined) await core.kernel.release(lease);
  }
  await putBack(core, presentOf<TState>(stored.value));
  const { turn, turnId } = stored.value;
  return {
    resumed: true,
    turn,
    turnId,
    ...(abandoned === undefined ? {} : { abandoned }),
    ...(pending === undefined ? {} : { pending }),
  };
}
