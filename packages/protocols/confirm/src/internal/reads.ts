import { type Committed, isParleyError, type KernelRefusal, type RecordCodec } from '@parley/core';
import type { ConfirmDecision } from '../decision.js';
import { ConfirmError } from '../errors.js';
import { fail, type GateContext } from './context.js';
import {
  type ConfirmationRecord,
  DECISION_CODEC,
  GRANT_CODEC,
  isFormatOne,
  PENDING_CODEC,
  toDecision,
} from './records.js';

// The runner's reads of the store: each record through the durable kernel, strictly (a record
// that does not parse is reported as `corrupt_record`, one of another format as `record_version`,
// and neither is ever acted on or overwritten). Writes are persistence.ts's alone.

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

/** The ids of the pending records in the store (read each with `readPendingAt`). */
export async function* pendingIds(ctx: GateContext): AsyncIterable<string> {
  const prefix = ctx.keys.pendingPrefix;
  for await (const item of ctx.store.list(prefix)) yield item.key.slice(prefix.length);
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
export async function refused<T>(
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
