import type { Committed } from '@parley/core';
import type { AuthorizeResult, ConfirmDecision } from '../decision.js';
import { ConfirmError } from '../errors.js';
import { type Entry, fail, type GateContext } from './context.js';
import {
  DECISION_CODEC,
  GRANT_CODEC,
  PENDING_CODEC,
  type ConfirmationRecord,
  toDecision,
} from './records.js';
import { decisionStep, grantStep, pendingStep } from './step-store.js';
import { ended, inOrder } from './in-order.js';
import { recordDraft } from './draft.js';
import { refused } from './reads.js';
import { allowanceOf } from '../allowance.js';

// The runner's store side: the one place records are written, each through the durable kernel
// (`kernel.apply` with a pure step of step-store.ts, on a fresh read, one compare-and-set); their
// strict reads are in reads.ts.

/**
 * Records a decision unless another gate recorded one first (then returns that one), grants the
 * standing allowance it carries, and removes the pending record. Failures are reported and the
 * decision stands locally.
 */
export async function writeDecision(
  ctx: GateContext,
  entry: Entry,
  decision: ConfirmDecision,
  wasPersisted: boolean,
): Promise<ConfirmDecision> {
  const { kernel, keys } = ctx;
  const { record } = entry.conf;
  try {
    const event = { type: 'decide', decision, keptMs: ctx.auditTtlMs } as const;
    // Expected absent (first writer wins): the compare-and-set on "no record" is the check, and a
    // decision another gate recorded first is read when it fails.
    const options = { basis: null };
    const done = await kernel.apply(keys.decision(record.id), DECISION_CODEC, decisionStep, event, options);
    const effect = done.ok ? done.effects[0] : await refused(ctx, done, record.id, undefined);
    if (effect !== undefined && 'type' in effect && effect.type === 'exists')
      return toDecision(effect.record); // another replica decided first
    const grant = ctx.rules.standingMs === undefined ? undefined : allowanceOf(decision, record);
    if (grant !== undefined && ctx.rules.standingMs !== undefined) {
      const granted = await kernel.apply(keys.allow(record), GRANT_CODEC, grantStep, {
        grant,
        keptMs: ctx.rules.standingMs,
      });
      if (!granted.ok) await refused(ctx, granted, record.id, undefined);
    }
    if (wasPersisted) await dropPending(ctx, record.id, entry.committed);
  } catch (error) {
    fail(ctx, error, record.id);
  }
  return decision;
}

/**
 * Marks a recorded decision used when the `authorize` rule lets it run `digest`, on the stored
 * decision; of two concurrent uses one wins and the other reads `already_used`.
 */
export async function useDecision(ctx: GateContext, id: string, digest: string): Promise<AuthorizeResult> {
  const event = { type: 'use', digest, keptMs: ctx.auditTtlMs } as const;
  const done = await ctx.kernel.apply(ctx.keys.decision(id), DECISION_CODEC, decisionStep, event);
  if (!done.ok) {
    if (done.code === 'write_conflict') return { ok: false, code: 'already_used' };
    if (done.code === 'store_failed')
      throw new ConfirmError('store_failed', done.message, { details: { id } });
    return await refused(ctx, done, id, { ok: false, code: 'unknown_decision' } as const);
  }
  const verdict = done.effects[0];
  if (verdict === undefined || !('ok' in verdict)) return { ok: false, code: 'unknown_decision' };
  return verdict.ok ? { ok: true, decision: toDecision(verdict.record) } : verdict;
}

/**
 * Removes the pending record of a decided confirmation (with `basis`, the version this gate
 * committed: no read when the store still holds it); a failure is reported.
 */
export async function dropPending(
  ctx: GateContext,
  id: string,
  basis?: Committed<ConfirmationRecord>,
): Promise<void> {
  try {
    const done = await ctx.kernel.apply(
      ctx.keys.pending(id),
      PENDING_CODEC,
      pendingStep,
      { type: 'drop' },
      { basis },
    );
    if (!done.ok) await refused(ctx, done, id, undefined);
  } catch (error) {
    fail(ctx, error, id);
  }
}

/**
 * Writes (after the entry's earlier writes) the next version of a prompted entry's pending
 * record, as it is now, and hands `written` its `rev`; then hands `after` whether it was written.
 * Resolves to `false` (and `after` hears `false`) when another gate wrote a newer version first
 * (`write_lost_race`: the caller adopts that one instead of acting on its own); a failed or
 * refused write is reported and reads as written (the confirmation goes on here).
 */
export function persist(
  ctx: GateContext,
  entry: Entry,
  written: (rev: number) => void,
  after?: (won: boolean) => void,
): Promise<boolean> {
  const snapshot = entry.conf.record; // what this write says, as of now
  return inOrder(entry, () => writePending(ctx, entry, snapshot, written, after));
}

/**
 * `persist` once the entry's earlier writes ended; a failure is reported and reads as written. No
 * async frame: one kept alive across the kernel call held every local of the write.
 */
function writePending(
  ctx: GateContext,
  entry: Entry,
  snapshot: ConfirmationRecord,
  written: (rev: number) => void,
  after: ((won: boolean) => void) | undefined,
): Promise<boolean> {
  const { id } = snapshot;
  // The version it follows is the one this gate wrote or read last, once the writes before it ended.
  const rev = entry.conf.record.rev;
  const next = recordDraft(snapshot, true);
  next.rev = rev + 1;
  const event = { type: 'write', base: rev === 0 ? null : rev, record: next } as const;
  // No read when this gate wrote the version it follows: the compare-and-set names that version.
  const basis = basisOf(entry, rev);
  const key = ctx.keys.pending(id);
  ctx.writing = key; // a change of `key` reported from inside the call is this write
  const applying = ctx.kernel.apply(key, PENDING_CODEC, pendingStep, event, { basis });
  ctx.writing = undefined;
  // The kernel answers a failed store call with a refusal: it does not reject.
  return applying.then((result) => {
    if (!result.ok) return refused(ctx, result, id, true).then((won) => wrote(ctx, entry, after, won));
    if (result.effects[0] !== 'lost') {
      entry.committed = result.committed;
      written(rev + 1);
    }
    return wrote(ctx, entry, after, result.effects[0] !== 'lost');
  });
}

/**
 * Ends a pending write: the entry's next store work may start, then `after` hears whether it was
 * written (a throw of it is reported: the entry's chain of writes never rejects).
 */
function wrote(
  ctx: GateContext,
  entry: Entry,
  after: ((won: boolean) => void) | undefined,
  won: boolean,
): boolean {
  ended(entry);
  try {
    after?.(won);
  } catch (error) {
    fail(ctx, error, entry.conf.record.id);
  }
  return won;
}

/**
 * What the kernel may take for the stored pending record before a write that follows `rev`: the
 * version this gate committed last when it is that one, none for a first write, or a fresh read.
 */
function basisOf(entry: Entry, rev: number): Committed<ConfirmationRecord> | null | undefined {
  if (rev === 0) return null; // its first write lands only where no record is (else: read, and lost)
  const committed = entry.committed;
  return committed?.value.rev === rev ? committed : undefined;
}
