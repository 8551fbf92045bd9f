import { parseSessionKey } from '@parley/bus';
import type { AuthorizeResult, ConfirmDecision } from '../decision.js';
import { authorizeRule } from './step-decided.js';
import type { JsonValue } from '@parley/core';
import { ConfirmError } from '../errors.js';
import { asJson, DAY_MS, fail, type GateContext } from './context.js';
import {
  type Entry,
  type PendingRecord,
  readDecisionRecord,
  readPendingRecord,
  toDecision,
  toPendingRecord,
} from './records.js';

/**
 * Writes (after the entry's earlier writes) the pending record of a prompted entry: the one
 * place pending records are written, a compare-and-set against the version this gate last wrote
 * or read, so a record is only ever replaced by a newer version of itself. Resolves to `false`
 * when another gate wrote a newer version first (`write_lost_race`: the caller adopts that one
 * instead of acting on its own); a store failure is reported and reads as written.
 */
export function persist(ctx: GateContext, entry: Entry): Promise<boolean> {
  const record = toPendingRecord(entry);
  const ttlMs = Math.max(1, record.expiresAt - ctx.clock.now()) + DAY_MS;
  const key = ctx.keys.pending(entry.id);
  const written = entry.io.then(async () => {
    const result = await ctx.store.compareAndSet(key, entry.version ?? null, asJson(record), { ttlMs });
    if (result.ok) entry.version = result.version;
    return result.ok;
  });
  const settled = written.catch((error: unknown) => {
    fail(ctx, error, entry.id);
    return true;
  });
  entry.io = settled;
  return settled;
}

/**
 * Records a decision unless another gate recorded one first (then returns that one), grants the
 * standing allowance it carries, and removes the pending record. Store failures are reported and
 * the decision stands locally.
 */
export async function writeDecision(
  ctx: GateContext,
  entry: Entry,
  decision: ConfirmDecision,
  wasPersisted: boolean,
): Promise<ConfirmDecision> {
  const { store, keys } = ctx;
  try {
    const written = await store.compareAndSet(keys.decision(entry.id), null, asJson(decision), {
      ttlMs: ctx.auditTtlMs,
    });
    if (!written.ok) {
      const existing = readDecisionRecord(await store.get(keys.decision(entry.id)));
      if (existing !== undefined) return toDecision(existing); // another replica decided first
    }
    if (decision.allowUntil !== undefined && ctx.standingMs !== undefined) {
      const grant = {
        grantedBy: decision.decidedBy as string, // `always` comes only from a reply or click, which name the user
        grantedAt: decision.decidedAt,
        decisionId: entry.id,
        approvers: asJson(entry.approvers as object),
        requester: entry.requester,
      };
      await store.set(keys.allow(entry), grant, { ttlMs: ctx.standingMs });
    }
    if (wasPersisted) await store.delete(keys.pending(entry.id));
  } catch (error) {
    fail(ctx, error, entry.id);
  }
  return decision;
}

/**
 * Marks a recorded decision used, when `authorizeRule` lets it run `digest`: a compare-and-set on
 * the version read, so of two concurrent uses one wins and the other reads `already_used`.
 */
export async function useDecision(ctx: GateContext, id: string, digest: string): Promise<AuthorizeResult> {
  const item = await ctx.store.getEntry(ctx.keys.decision(id));
  const verdict = authorizeRule(readDecisionRecord(item?.value), digest, ctx.clock.now());
  if (!verdict.ok || item === undefined)
    return verdict.ok ? { ok: false, code: 'unknown_decision' } : verdict;
  const used = await ctx.store.compareAndSet(item.key, item.version, asJson(verdict.record), {
    ttlMs: ctx.auditTtlMs,
  });
  return used.ok ? { ok: true, decision: toDecision(verdict.record) } : { ok: false, code: 'already_used' };
}

/** Removes the pending record of a decided confirmation (its delete failed before); a failure is reported. */
export async function dropPending(ctx: GateContext, id: string): Promise<void> {
  await ctx.store.delete(ctx.keys.pending(id)).catch((error: unknown) => fail(ctx, error, id));
}

/** The decision recorded for an id, or `undefined`; a store failure is reported and reads as none. */
export async function readDecision(ctx: GateContext, id: string): Promise<ConfirmDecision | undefined> {
  try {
    const record = readDecisionRecord(await ctx.store.get(ctx.keys.decision(id)));
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
): Promise<{ readonly record: PendingRecord; readonly version: number } | 'settled' | undefined> {
  try {
    if (await isDecided(ctx, id)) return 'settled';
    const key = ctx.keys.pending(id);
    const item = await ctx.store.getEntry(key);
    const record = readPending(ctx, key, item?.value);
    return item === undefined || record === undefined ? undefined : { record, version: item.version };
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

/** Reads a stored pending record strictly; one that does not parse is reported and read as none. */
export function readPending(
  ctx: GateContext,
  key: string,
  value: JsonValue | undefined,
): PendingRecord | undefined {
  if (value === undefined) return undefined;
  const record = readPendingRecord(value);
  if (record === undefined) {
    fail(
      ctx,
      new ConfirmError(
        'corrupt_record',
        `The stored confirmation under ${key} cannot be read; it is ignored`,
        { details: { key } },
      ),
    );
  }
  return record;
}

/**
 * An entry for a persisted confirmation: restored after a restart, or another gate's (`remote`).
 * `seq` is the arrival number at which it was read. This gate did not see when its prompt's send
 * began, so every arrival counts as after that (0); its delivery is known from `seq` for another
 * live gate's (what arrived before may have arrived while it was in flight: the platform's order
 * decides), and from before this gate started for its own (a previous life delivered it).
 */
export function fromRecord(record: PendingRecord, remote: boolean, version: number, seq: number): Entry {
  const delivered = record.deliveredAt !== undefined;
  return {
    id: record.id,
    sessionKey: record.sessionKey,
    address: parseSessionKey(record.sessionKey),
    action: record.action,
    summary: record.summary,
    requester: record.requester,
    approvers: record.approvers,
    steps: record.steps ?? undefined,
    timeoutMs: record.timeoutMs,
    requestedAt: record.requestedAt,
    restored: true,
    remote,
    owner: record.owner,
    state: 'prompted',
    step: record.step,
    reprompts: record.reprompts,
    firstPromptedAt: record.firstPromptedAt,
    promptedAt: record.promptedAt,
    deliveredAt: record.deliveredAt,
    sentSeq: 0,
    deliveredSeq: delivered ? (remote ? seq : 0) : undefined,
    order: record.order,
    seen: delivered,
    toldEarly: undefined,
    windowOver: false,
    sends: 0,
    pages: 0,
    expiresAt: record.expiresAt,
    done: false,
    io: Promise.resolve(),
    version,
  };
}
