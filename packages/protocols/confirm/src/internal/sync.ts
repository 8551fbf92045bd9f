import type { ConfirmDecision } from '../decision.js';
import { type Entry, fail, type GateContext } from './context.js';
import { follow, storedEntry } from './followed.js';
import { dropPending, isDecided, pendingRecords, readDecision } from './persistence.js';
import { dispatch, settle } from './runner.js';

// The confirmations a gate holds from the store: what was pending before it started (restore),
// and those other gates on the same store prompted (followed, followed.ts); the store's changes
// reach them through intake.ts.

/**
 * Loads the confirmations persisted before this gate started; it owns them from now on. A record
 * whose decision exists is settled (its delete failed) and is removed, not restored; a record that
 * does not parse is reported and skipped; one whose prompt was never confirmed delivered settles
 * `aborted` / `prompt_failed` (nobody can tell whether its replies answer it).
 */
export async function restore(ctx: GateContext): Promise<void> {
  const undelivered: Entry[] = [];
  try {
    for await (const { record } of pendingRecords(ctx)) {
      if (record === undefined || ctx.byId.has(record.id) || ctx.active.has(record.sessionKey)) continue;
      if (await isDecided(ctx, record.id)) {
        await dropPending(ctx, record.id);
        continue;
      }
      if (record.owner !== undefined && record.owner !== ctx.replicaId) {
        follow(ctx, record); // another replica's: it (or its next start) resumes it; indexed, not held
        continue;
      }
      // Its own: a previous life of this replica delivered it, before anything this gate saw.
      const delivered = record.deliveredAt === undefined ? null : 0;
      const entry = storedEntry(ctx, record, false, delivered);
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
