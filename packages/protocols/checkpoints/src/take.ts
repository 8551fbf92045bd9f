import { copyWith, canonicalJson } from '@parley/core';
import { type CheckpointsContext, json, snapshotOf } from './context.js';
import { committed, refuse } from './log-io.js';
import { copyOf, type LogRecord, viewOf } from './log-record.js';
import type { Checkpoint, Checkpoints } from './types.js';

/**
 * @internal Keeps `state` as checkpoint `id` and drops the oldest beyond the cap; a pending rollback
 * is committed first. The same id with the same content is accepted again without a write.
 *
 * It starts from the log this process holds, without a read (on a remote store, a round trip saved
 * per take): the log write's compare-and-set lands only on exactly that log. When the log moved, or
 * the held log already names `id`, the take starts again from a fresh read (`fresh`).
 */
export async function takeCheckpoint<TState>(
  ctx: CheckpointsContext<TState>,
  id: string,
  state: TState,
  label: string | undefined,
): ReturnType<Checkpoints<TState>['take']> {
  const limit = typeof ctx.max === 'number' ? ctx.max : await ctx.max();
  if (limit === 0) return refuse('disabled', 'maxCheckpoints is 0: checkpoints are off');
  return takeFrom(ctx, limit, id, state, label, false);
}

/** The take under `limit` (read once per take), from the held log or, with `fresh`, a read of it. */
async function takeFrom<TState>(
  ctx: CheckpointsContext<TState>,
  limit: number,
  id: string,
  state: TState,
  label: string | undefined,
  fresh: boolean,
): ReturnType<Checkpoints<TState>['take']> {
  const held = fresh ? undefined : ctx.held();
  const current = held ?? (await ctx.read());
  if ('ok' in current) return current;
  const { log, freed } = committed(current.log);
  const existing = log.checkpoints.find((c) => c.id === id);
  // whether the id is kept, and with what, is answered on the log as the store holds it now
  if (existing !== undefined && held !== undefined) return takeFrom(ctx, limit, id, state, label, true);
  if (existing !== undefined) {
    const kept = await ctx.loadState(existing.ref, id);
    if (kept.ok && canonicalJson(json(kept.state)) === canonicalJson(json(state)) && freed.length === 0) {
      return { ok: true, checkpoint: copyOf(existing), dropped: [], log: viewOf(log, current.version) };
    }
    return refuse('duplicate_id', `checkpoint ${id} is kept already, with other content`);
  }
  const checkpoint: Checkpoint = {
    id,
    at: ctx.clock.now(),
    label: label ?? id,
    ref: `${ctx.prefix}checkpoint:${id}:${ctx.nonce()}`, // every snapshot key is new
  };
  await ctx.store.set(checkpoint.ref, snapshotOf(ctx, log, id, state));
  // the oldest beyond the cap go (limit ≥ 1 here, so the new checkpoint is always kept)
  const dropped = log.checkpoints.slice(0, Math.max(0, log.checkpoints.length + 1 - limit));
  const kept = log.checkpoints.slice(dropped.length);
  kept.push(checkpoint);
  const next: LogRecord = copyWith(log, { checkpoints: kept });
  const saved = await ctx.write(next, current.log, [checkpoint.ref], current.committed);
  // the held log had moved: the write deleted its snapshot; once more from the log as it is now
  if (!saved.ok && saved.code === 'conflict' && held !== undefined)
    return takeFrom(ctx, limit, id, state, label, true);
  if (!saved.ok) return saved;
  for (const key of freed) await ctx.store.delete(key);
  for (const { ref } of dropped) await ctx.store.delete(ref);
  const view = viewOf(next, saved.version);
  return { ok: true, checkpoint: copyOf(checkpoint), dropped: dropped.map((c) => c.id), log: view };
}
