// Claims before effects: the claim record and the two decisions over it (pure).
import type { JsonValue } from '../json.js';
import { type Decoded, guard, isValid } from './record.js';
import type { ClaimRequest, ClaimResult, HeldClaim } from './api.js';
import type { KernelRecord, KernelRefusal, RecordCodec } from './types.js';

/**
 * How long a claim's record is kept after it was claimed, by default: seven days. A later claim of
 * the same key within it finds the stored result (or the unknown outcome) instead of running again.
 *
 * @example
 * ```ts
 * import { DEFAULT_CLAIM_RETAIN_MS } from '@parley/core';
 *
 * console.log(DEFAULT_CLAIM_RETAIN_MS / 86_400_000); // 7
 * ```
 */
export const DEFAULT_CLAIM_RETAIN_MS = 7 * 86_400_000;

/**
 * What the kernel's claim record holds: the effect's id and content digest, the owner that claimed
 * it and when, and (once settled) its result. Read it with {@link CLAIM_RECORDS}.
 *
 * @example
 * ```ts
 * import type { ClaimRecord } from '@parley/core';
 *
 * const record: ClaimRecord = { id: 'send-invoice-42', digest: 'sha256:ab12', owner: 'worker-a', claimedAt: 1_700_000_000_000, settled: true, result: { sent: true } };
 * ```
 */
export interface ClaimRecord {
  readonly id: string;
  readonly digest: string;
  readonly owner: string;
  readonly claimedAt: number;
  readonly settled: boolean;
  /** The result given to `settle` (`null` until then). */
  readonly result: JsonValue;
}

/**
 * The codec of the kernel's claim records (kind `parley.kernel.claim`, format 1), for reading a claim
 * without taking it (`kernel.read(key, CLAIM_RECORDS)`) or listing them (`kernel.list(prefix, CLAIM_RECORDS)`).
 * Only `claim`, `settle` and `abandon` write them.
 *
 * @example
 * ```ts
 * import { CLAIM_RECORDS, createKernel, createMemoryStore } from '@parley/core';
 *
 * const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
 * await kernel.claim('call:42', { id: 'send-invoice-42', digest: 'sha256:ab12', leaseMs: 30_000 });
 * const found = await kernel.read('call:42', CLAIM_RECORDS);
 * console.log(found?.value.owner, found?.value.settled); // worker-a false
 * ```
 */
export const CLAIM_RECORDS: RecordCodec<ClaimRecord> = {
  kind: 'parley.kernel.claim',
  version: 1,
  decode: (data) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
    const d = data as Record<string, unknown>;
    const ok =
      typeof d.id === 'string' &&
      typeof d.digest === 'string' &&
      typeof d.owner === 'string' &&
      Number.isFinite(d.claimedAt) &&
      typeof d.settled === 'boolean' &&
      'result' in d;
    return ok ? (d as unknown as ClaimRecord) : undefined; // every field checked above
  },
  encode: (value) => ({ ...value }),
};

type Fresh = Extract<Decoded<ClaimRecord>, { ok: true }>;
type Plan<R> = { readonly write: boolean; readonly next: KernelRecord | undefined; readonly out: R };

/** @internal Claims `effect` at `key` for `owner`, or reports what another claim of it left. */
export function claimStep(
  key: string,
  owner: string,
  effect: ClaimRequest,
  read: Fresh,
  now: number,
): Plan<ClaimResult> {
  const found = read.committed?.value;
  const record = read.record;
  if (found === undefined) {
    const token = (record?.fence ?? 0) + 1;
    const expiresAt = now + effect.leaseMs;
    const data: ClaimRecord = {
      id: effect.id,
      digest: effect.digest,
      owner,
      claimedAt: now,
      settled: false,
      result: null,
    };
    const next: KernelRecord = {
      kind: CLAIM_RECORDS.kind,
      version: CLAIM_RECORDS.version,
      data: CLAIM_RECORDS.encode(data),
      lease: { owner, token, expiresAt },
      fence: token,
      deadlineAt: Math.max(expiresAt, now + (effect.retainMs ?? DEFAULT_CLAIM_RETAIN_MS)),
    };
    return {
      write: true,
      next,
      out: { status: 'claimed', claim: { key, id: effect.id, owner, token, expiresAt } },
    };
  }
  const answer = (out: ClaimResult): Plan<ClaimResult> => ({ write: false, next: record, out });
  if (found.id !== effect.id || found.digest !== effect.digest) {
    return answer({ status: 'conflict', message: `${key} was claimed for ${found.id} with other content` });
  }
  if (found.settled) return answer({ status: 'settled', result: found.result });
  const lease = record?.lease ?? null;
  if (isValid(lease, now))
    return answer({ status: 'in_flight', owner: lease.owner, expiresAt: lease.expiresAt });
  return answer({ status: 'unknown', owner: found.owner, claimedAt: found.claimedAt });
}

/** @internal Stores the result of a held claim (its lease checked at `now`) and ends the lease. */
export function settleStep(
  claim: HeldClaim,
  read: Fresh,
  result: JsonValue,
  now: number,
): Plan<undefined> | KernelRefusal {
  const refused = guard(claim.key, read.record, claim, now);
  if (refused !== undefined) return refused;
  const found = heldRecord(claim, read);
  if ('ok' in found) return found;
  const data = CLAIM_RECORDS.encode({ ...found.value, settled: true, result });
  return { write: true, next: { ...found.record, data, lease: null }, out: undefined };
}

/**
 * @internal Gives a held claim back (its lease checked at `now`): the record becomes a tombstone that
 * keeps the fence until the claim's lease would have expired, so the next claim gets a new token.
 */
export function abandonStep(claim: HeldClaim, read: Fresh, now: number): Plan<undefined> | KernelRefusal {
  const refused = guard(claim.key, read.record, claim, now);
  if (refused !== undefined) return refused;
  const found = heldRecord(claim, read);
  if ('ok' in found) return found;
  const next: KernelRecord = { ...found.record, data: null, lease: null, deadlineAt: claim.expiresAt };
  return { write: true, next, out: undefined };
}

function heldRecord(
  claim: HeldClaim,
  read: Fresh,
): { readonly value: ClaimRecord; readonly record: KernelRecord } | KernelRefusal {
  const value = read.committed?.value;
  if (value !== undefined && value.id === claim.id && read.record !== undefined) {
    return { value, record: read.record };
  }
  return {
    ok: false,
    code: 'claim_conflict',
    message: `${claim.key} holds no claim of ${claim.id}`,
    key: claim.key,
  };
}
