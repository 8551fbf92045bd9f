import { parseSessionKey } from '@parley/bus';
import type { ConfirmDecision } from '../decision.js';
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

/** Writes (after the entry's earlier writes) the pending record of a prompted entry. */
export function persist(ctx: GateContext, entry: Entry): void {
  const record = toPendingRecord(entry);
  const ttlMs = Math.max(1, record.expiresAt - ctx.clock.now()) + DAY_MS;
  entry.io = entry.io
    .then(() => ctx.store.set(ctx.keys.pending(entry.id), asJson(record), { ttlMs }))
    .then((version) => {
      entry.version = version;
    })
    .catch((error) => fail(ctx, error, entry.id));
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
export async function loadRemote(ctx: GateContext, id: string): Promise<Entry | 'settled' | undefined> {
  try {
    if (await isDecided(ctx, id)) return 'settled';
    const key = ctx.keys.pending(id);
    const record = readPending(ctx, key, await ctx.store.get(key));
    return record === undefined ? undefined : fromRecord(record, true);
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

/** An entry for a persisted confirmation: restored after a restart, or another gate's (`remote`). */
export function fromRecord(record: PendingRecord, remote: boolean, version?: number): Entry {
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
    sends: 0,
    pages: 0,
    expiresAt: record.expiresAt,
    done: false,
    io: Promise.resolve(),
    version,
  };
}
