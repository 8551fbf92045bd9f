import { type Committed, isParleyError, type KernelRefusal, type RecordCodec } from '@parley/core';
import type { AuthorizeResult, ConfirmDecision } from '../decision.js';
import { ConfirmError } from '../errors.js';
import { type Entry, fail, type GateContext } from './context.js';
import {
  DECISION_CODEC,
  GRANT_CODEC,
  isFormatOne,
  PENDING_CODEC,
  type ConfirmationRecord,
  toDecision,
} from './records.js';
import { recordDraft, sameRecord } from './draft.js';
import { decisionStep, grantStep, pendingStep } from './step-store.js';
import { allowanceOf } from '../allowance.js';

// The runner's store side: the one place records are written, each through the durable kernel
// (`kernel.apply` with a pure step of step-store.ts, on a fresh read, one compare-and-set), and
// where they are read strictly (a record that does not parse is reported as `corrupt_record`, one
// of another format as `record_version`, and neither is ever acted on or overwritten).

/**
 * Writes (after the entry's earlier writes) the next version of a prompted entry's pending
 * record, as it is now, and hands `written` its `rev`. Resolves to `false` when another gate wrote a newer version first (`write_lost_race`:
 * the caller adopts that one instead of acting on its own); a failed or refused write is reported
 * and reads as written (the confirmation goes on here).
 */
export function persist(ctx: GateContext, entry: Entry, written: (rev: number) => void): Promise<boolean> {
  const snapshot = entry.conf.record; // what this write says, as of now
  const settled = entry.io.then(() => writePending(ctx, entry, snapshot, written));
  entry.io = settled;
  return settled;
}

/** `persist` once the entry's earlier writes ended; a failure is reported and reads as written. */
async function writePending(
  ctx: GateContext,
  entry: Entry,
  snapshot: ConfirmationRecord,
  written: (rev: number) => void,
): Promise<boolean> {
  const { id } = snapshot;
  try {
    // The version it follows is the one this gate wrote or read last, once the writes before it ended.
    const rev = entry.conf.record.rev;
    const base = rev === 0 ? null : rev;
    const next = recordDraft(snapshot, true);
    next.rev = rev + 1;
    const event = { type: 'write', base, record: next } as const;
    // No read when this gate wrote the version it follows: the compare-and-set names that version.
    const basis = basisOf(entry, rev);
    const key = ctx.keys.pending(id);
    ctx.writing = key; // a change of `key` reported from inside the call is this write
    const applying = ctx.kernel.apply(key, PENDING_CODEC, pendingStep, event, { basis });
    ctx.writing = undefined;
    const result = await applying;
    if (!result.ok) return await refused(ctx, result, id, true);
    if (result.effects[0] === 'lost') return false;
    entry.committed = result.committed;
    written(next.rev);
    if (entry.committed === result.committed) entry.committed = shared(result.committed, entry.conf.record);
    return true;
  } catch (error) {
    fail(ctx, error, id);
    return true;
  }
}

/**
 * The committed copy of a pending record, holding `record` instead of its own equal copy when
 * the two hold the same values (the entry's record, once `written` gave it its `rev`): one object
 * per pending confirmation instead of two. As a basis it is read for its `rev` and store version.
 */
function shared(
  committed: Committed<ConfirmationRecord> | undefined,
  record: ConfirmationRecord,
): Committed<ConfirmationRecord> | undefined {
  if (committed === undefined || committed.value === record || !sameRecord(committed.value, record))
    return committed;
  const { key, storeVersion, lease, fence, deadlineAt } = committed;
  return { key, value: record, storeVersion, lease, fence, deadlineAt };
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

/** The decision recorded for an id, or `undefined`; a store failure is reported and reads as none. */
export async function readDecision(ctx: GateContext, id: string): Promise<ConfirmDecision | undefined> {
  try {
    const record = await readRecord(ctx, ctx.keys.decision(id), DECISION_CODEC);
    return record === undefined ? undefined : toDecision(record);
  } catch (error) {
    fail(ctx, error, id);
    return undefined;
  }
}

/** A confirmation this gate does not hold: settled, unknown, or pending on another replica. */
export async function loadRemote(
  ctx: GateContext,
  id: string,
): Promise<ConfirmationRecord | 'settled' | undefined> {
  try {
    if (await isDecided(ctx, id)) return 'settled';
    return await readPendingAt(ctx, id);
  } catch (error) {
    fail(ctx, error, id);
    return undefined;
  }
}

/**
 * Whether a decision is recorded for an id. A pending record whose decision exists is settled,
 * whatever is left of it (its delete may have failed): it is never taken as pending again.
 */
export async function isDecided(ctx: GateContext, id: string): Promise<boolean> {
  return (await ctx.store.get(ctx.keys.decision(id))) !== undefined;
}

/** The pending record of an id, read strictly (reported and `undefined` when it cannot be used); store failures throw. */
export function readPendingAt(ctx: GateContext, id: string): Promise<ConfirmationRecord | undefined> {
  return readRecord(ctx, ctx.keys.pending(id), PENDING_CODEC);
}

/**
 * The pending records in the store with their ids, one at a time as the store lists them: each is
 * read once, by the listing itself, strictly (one that cannot be used is reported, as `readPendingAt`
 * reports it, and comes as `undefined`); store failures throw.
 */
export async function* pendingRecords(
  ctx: GateContext,
): AsyncIterable<{ readonly id: string; readonly record: ConfirmationRecord | undefined }> {
  const prefix = ctx.keys.pendingPrefix;
  try {
    for await (const item of ctx.kernel.each(prefix, PENDING_CODEC)) {
      if (item.ok) {
        yield { id: item.committed.key.slice(prefix.length), record: item.committed.value };
        continue;
      }
      const { key, code, message } = item;
      await refused(ctx, { ok: false, code, message, key }, undefined, undefined);
      yield { id: key.slice(prefix.length), record: undefined };
    }
  } catch (error) {
    if (isParleyError(error, 'store_failed')) throw error.cause ?? error; // the store's own error
    throw error;
  }
}

/** The recorded decisions, read strictly (records that cannot be read are reported and skipped). */
export async function* decisions(ctx: GateContext): AsyncIterable<ConfirmDecision> {
  for await (const item of ctx.store.list(ctx.keys.decisionPrefix)) {
    const record = await readRecord(ctx, item.key, DECISION_CODEC);
    if (record !== undefined) yield toDecision(record);
  }
}

/** Who granted the standing allowance under `key`, if one is stored; failures are reported and read as none. */
export async function readGrant(ctx: GateContext, key: string, id: string): Promise<string | undefined> {
  try {
    return (await readRecord(ctx, key, GRANT_CODEC))?.grantedBy;
  } catch (error) {
    fail(ctx, error, id);
    return undefined;
  }
}

/**
 * Reads a record through the kernel: `undefined` when absent, or (reported) when it does not
 * parse (`corrupt_record`) or has another format (`record_version`, also the bare format 1 of
 * earlier releases); a store failure throws.
 */
async function readRecord<T>(ctx: GateContext, key: string, codec: RecordCodec<T>): Promise<T | undefined> {
  let committed: Committed<T> | undefined;
  try {
    committed = await ctx.kernel.read(key, codec);
  } catch (error) {
    if (isParleyError(error, 'store_failed')) throw error.cause ?? error; // the store's own error
    if (!isParleyError(error, 'corrupt_record') && !isParleyError(error, 'record_version')) throw error;
    await refused(ctx, { ok: false, code: error.code, message: error.message, key }, undefined, undefined);
    return undefined;
  }
  return committed?.value;
}

/**
 * Reports a read or write the kernel refused — `corrupt_record`, `record_version` (another
 * format, also the bare format 1 of earlier releases) or `store_failed` — and returns `fallback`
 * (what the caller goes on with). Such a record is never acted on or overwritten.
 */
async function refused<T>(
  ctx: GateContext,
  refusal: KernelRefusal,
  id: string | undefined,
  fallback: T,
): Promise<T> {
  const { key } = refusal;
  const older =
    refusal.code === 'record_version' ||
    (refusal.code === 'corrupt_record' && isFormatOne(await ctx.store.get(key).catch(() => undefined)));
  const code = older ? 'record_version' : refusal.code === 'corrupt_record' ? refusal.code : 'store_failed';
  const why = older ? 'has another record format' : 'cannot be read';
  const message =
    code === 'store_failed' ? refusal.message : `The stored record under ${key} ${why}; it is ignored`;
  const cause = refusal.cause;
  const error =
    code === 'store_failed' && cause !== undefined
      ? cause // the store's own error, as it threw it
      : new ConfirmError(code, message, { details: { key, refusal: refusal.code } });
  fail(ctx, error, id);
  return fallback;
}
