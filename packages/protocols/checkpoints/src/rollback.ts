import { copyWith } from '@parley/core';
import { type CheckpointsContext, snapshotOf } from './context.js';
import { refuse, stale } from './log-io.js';
import { type LogRecord, viewOf } from './log-record.js';
import type { Checkpoint, Restored } from './types.js';

/**
 * @internal Returns an earlier checkpoint's state, keeping `present` (once per pending rollback) so
 * the rollback can be undone until the next commit.
 */
export async function rollbackTo<TState>(
  ctx: CheckpointsContext<TState>,
  id: string,
  present: TState,
  ifVersion: number | null | undefined,
): Promise<Restored<TState>> {
  const limit = typeof ctx.max === 'number' ? ctx.max : await ctx.max();
  if (limit === 0) return refuse('disabled', 'maxCheckpoints is 0: rollback is off');
  const current = await ctx.read();
  if ('ok' in current) return current;
  const { log, version } = current;
  const changed = stale(ifVersion, version);
  if (changed !== undefined) return changed;
  const index = log.checkpoints.findIndex((c) => c.id === id);
  const checkpoint = log.checkpoints[index];
  if (checkpoint === undefined) {
    return refuse('no_checkpoint', `There is no checkpoint for ${id} (kept: ${limit})`);
  }
  const latest = log.checkpoints[log.checkpoints.length - 1] as Checkpoint;
  if (index === log.checkpoints.length - 1) {
    return refuse('not_earlier', `${id} is the latest checkpoint: nothing to roll back`);
  }
  const restored = await ctx.loadState(checkpoint.ref, id);
  if (!restored.ok) return restored;
  const pending = log.rollback?.canUndo === true && log.undo !== null;
  const fromId = pending ? (log.rollback as { fromId: string }).fromId : latest.id;
  let undo = log.undo;
  const written: string[] = [];
  if (!pending || undo === null) {
    const ref = `${ctx.prefix}undo:${ctx.nonce()}`;
    await ctx.store.set(ref, snapshotOf(ctx, log, fromId, present));
    written.push(ref);
    undo = { ref, checkpoints: log.checkpoints };
  }
  const next: LogRecord = {
    ...log,
    checkpoints: log.checkpoints.slice(0, index + 1),
    rollback: { fromId, toId: id, canUndo: true },
    undo,
  };
  const saved = await ctx.write(next, log, written);
  if (!saved.ok) return saved;
  return { ok: true, state: restored.state, id, log: viewOf(next, saved.version) };
}

/** @internal Returns the state kept by the pending rollback and puts back the checkpoints it hid. */
export async function undoRollback<TState>(
  ctx: CheckpointsContext<TState>,
  ifVersion: number | null | undefined,
): Promise<Restored<TState>> {
  const current = await ctx.read();
  if ('ok' in current) return current;
  const { log, version } = current;
  const changed = stale(ifVersion, version);
  if (changed !== undefined) return changed;
  if (log.rollback === null) return refuse('nothing_to_undo', 'No rollback to undo');
  if (!log.rollback.canUndo || log.undo === null) {
    const { fromId, toId } = log.rollback;
    return refuse(
      'undo_unavailable',
      `A new command was sent after rolling back ${fromId} to ${toId}: that branch is final`,
    );
  }
  const kept = await ctx.loadState(log.undo.ref, log.rollback.fromId);
  if (!kept.ok) return kept;
  const next: LogRecord = copyWith(log, { checkpoints: log.undo.checkpoints, rollback: null, undo: null });
  const saved = await ctx.write(next, log);
  if (!saved.ok) return saved;
  await ctx.store.delete(log.undo.ref);
  return { ok: true, state: kept.state, id: log.rollback.fromId, log: viewOf(next, saved.version) };
}
