import type { JsonValue } from '@parley/core';
import { type Head, readHead, toJson } from './head.js';
import {
  abandon,
  catchUp,
  checkpoint,
  isLive,
  loadHead,
  presentOf,
  putBack,
  type RunnerCore,
} from './sync.js';
import type { OpenResult, TurnCheckpoint } from './types.js';

/**
 * `open` of a runner: a fresh head and first checkpoint, or the stored present put back with what a
 * dead process left settled. @internal
 */
export async function openRunner<TState>(
  core: RunnerCore<TState>,
  first: () => TurnCheckpoint<TState>,
  label: (turn: number) => string,
  options: { readonly label?: string; readonly takeOver?: boolean },
): Promise<OpenResult> {
  let stored = await readHead(core.store, core.headKey);
  if (stored === undefined) {
    const present = first();
    const state = present.state as unknown as JsonValue; // what `capture` returned: plain JSON
    const head: Head = { kind: 'parley.turns.head', ...present, state, open: null, last: null };
    const created = await core.store.compareAndSet(core.headKey, null, toJson(head));
    if (created.ok) {
      await checkpoint(core, present, options.label ?? 'start');
      return { resumed: false, turn: 0, turnId: present.turnId };
    }
    stored = await loadHead(core); // another process opened it first
  }
  let abandoned: string | undefined;
  let pending: { turnId: string; deadlineAt: number } | undefined;
  const open = stored.head.open;
  if (open !== null && (options.takeOver === true || !isLive(core, stored.head))) {
    stored = (await abandon(core, stored, open.turnId)) ?? (await loadHead(core));
    abandoned = open.turnId;
  } else if (open !== null) pending = { turnId: open.turnId, deadlineAt: open.deadlineAt };
  stored = await catchUp(core, stored, true, label);
  await putBack(core, presentOf<TState>(stored.head));
  const { turn, turnId } = stored.head;
  return {
    resumed: true,
    turn,
    turnId,
    ...(abandoned === undefined ? {} : { abandoned }),
    ...(pending === undefined ? {} : { pending }),
  };
}
