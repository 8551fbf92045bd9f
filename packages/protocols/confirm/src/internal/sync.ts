import type { ConfirmDecision } from '../decision.js';
import { parseSessionKey } from '@parley/bus';
import { type Entry, fail, type GateContext } from './context.js';
import { confirmationOf } from './confirmation.js';
import { dropPending, isDecided, pendingIds, readDecision, readPendingAt } from './persistence.js';
import type { ConfirmationRecord } from './records.js';
import { dispatch, entryOf, settle } from './runner.js';

// The confirmations a gate holds from the store: what was pending before it started (restore),
// and those other gates on the same store prompted (followed); the store's changes reach them
// through intake.ts.

/**
 * Loads the confirmations persisted before this gate started; it owns them from now on. A record
 * whose decision exists is settled (its delete failed) and is removed, not restored; a record that
 * does not parse is reported and skipped; one whose prompt was never confirmed delivered settles
 * `aborted` / `prompt_failed` (nobody can tell whether its replies answer it).
 */
export async function restore(ctx: GateContext): Promise<void> {
  const undelivered: Entry[] = [];
  try {
    for await (const id of pendingIds(ctx)) {
      const record = await readPendingAt(ctx, id);
      if (record === undefined || ctx.byId.has(record.id) || ctx.active.has(record.sessionKey)) continue;
      if (await isDecided(ctx, record.id)) {
        await dropPending(ctx, record.id);
        continue;
      }
      if (record.owner !== undefined && record.owner !== ctx.replicaId) {
        follow(ctx, record); // another replica's: it (or its next start) resumes it
        continue;
      }
      const entry = fromRecord(ctx, record, false);
      ctx.byId.set(record.id, entry);
      ctx.active.set(record.sessionKey, entry);
      dispatch(ctx, entry, { type: 'timed' });
      if (record.deliveredAt === undefined) undelivered.push(entry);
    }
  } catch (error) {
    fail(ctx, error);
  }
  for (const entry of undelivered) settle(ctx, entry, 'aborted', 'prompt_failed');
}

/** Stops following another gate's confirmation (settled or expired there); nothing is recorded or sent. */
export function dropMirror(ctx: GateContext, entry: Entry, decision?: ConfirmDecision): void {
  dispatch(ctx, entry, { type: 'drop', decision });
}

/** Settles an entry with the decision recorded in the store, if there is one, and returns it. */
export async function adoptRecorded(ctx: GateContext, entry: Entry): Promise<ConfirmDecision | undefined> {
  const decision = await readDecision(ctx, entry.conf.record.id);
  if (decision === undefined) return undefined;
  if (entry.conf.remote) dropMirror(ctx, entry, decision);
  else settle(ctx, entry, decision.outcome, decision.reason, { adopt: decision });
  return decision;
}

/** Hands a stored version of an entry's record to the step, which takes it only when it is newer. */
function update(ctx: GateContext, entry: Entry, record: ConfirmationRecord): void {
  dispatch(ctx, entry, { type: 'stored', record, seq: ++ctx.arrivals });
}

/** Follows a confirmation another gate prompted; returns the followed entry, if it is followed. */
export function follow(ctx: GateContext, record: ConfirmationRecord): Entry | undefined {
  const { id } = record;
  const held = ctx.mirrors.get(id);
  if (held !== undefined) {
    // Read twice (a notification raced the first read): keep the newer version.
    update(ctx, held, record);
    return held;
  }
  if (ctx.closed || ctx.byId.has(id) || ctx.recentlySettled.has(id)) return undefined;
  const entry = fromRecord(ctx, record, true);
  ctx.mirrors.set(id, entry);
  ctx.mirrorOf.set(record.sessionKey, entry);
  // Every gate following it times it out, so it expires even when its owner is gone; the decision
  // is a compare-and-set, so one gate records it and tells the session, the others adopt it.
  dispatch(ctx, entry, { type: 'timed' });
  return entry;
}

/**
 * An entry for a persisted confirmation: restored after a restart, or another gate's (`remote`).
 * This gate did not see when its prompt's send began, so every arrival counts as after that; its
 * delivery is known from now for another live gate's (what arrived before may have arrived while
 * it was in flight: the platform's order decides), and from before this gate started for its own
 * (a previous life delivered it).
 */
function fromRecord(ctx: GateContext, record: ConfirmationRecord, remote: boolean): Entry {
  const seq = ++ctx.arrivals;
  const delivered = record.deliveredAt !== undefined;
  const conf = confirmationOf(record, {
    restored: true,
    remote,
    resumable: ctx.resume[record.action.name] !== undefined,
    state: 'prompted',
    deliveredSeq: delivered ? (remote ? seq : 0) : null,
  });
  return entryOf(conf, parseSessionKey(record.sessionKey));
}
