// Unknown outcomes: kernel claims whose lease ended without a result (the effect may or may not
// have run, and is never re-run), read through @parley/core's CLAIM_RECORDS.
import { CLAIM_RECORDS, type ClaimRecord, type StoreEntry } from '@parley/core';
import { hidden, type ListView, shown, text, type ViewContext } from './context.js';
import { isKind, pageOf, readRecord } from './page.js';

/** A claim without a result whose lease has ended: an outcome nobody knows. */
export interface UnknownView {
  readonly key: string;
  readonly id: string;
  readonly owner: string;
  readonly claimedAt: number;
  /** When the claim's lease ended (absent when none is stored). */
  readonly leaseEndedAt?: number;
  /** The claim's content digest (for a tool call: its arguments), hidden unless `reveal.args`. */
  readonly content: string;
}

/** One page of the unknown outcomes under the configured claim prefixes, by key. */
export async function unknownPage(
  ctx: ViewContext,
  after: string | undefined,
): Promise<ListView<UnknownView>> {
  const now = ctx.clock.now();
  const accept = (entry: StoreEntry): boolean => {
    if (!isKind(entry.value, CLAIM_RECORDS)) return false;
    const read = readRecord(entry, CLAIM_RECORDS);
    if (!read.ok || read.value === undefined) return !read.ok;
    const lease = read.record.lease;
    return !read.value.settled && (lease === null || lease.expiresAt <= now);
  };
  // several prefixes: one page of each, merged in key order, cut to the page size
  const pages = await Promise.all(
    ctx.claimPrefixes.map((p) => pageOf(ctx.store, p, after, ctx.pageSize, accept)),
  );
  const byKey = new Map(pages.flatMap((page) => page.entries).map((entry) => [entry.key, entry]));
  const entries = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1)); // keys are unique
  const more = entries.length > ctx.pageSize || pages.some((page) => page.next !== undefined);
  const kept = entries.slice(0, ctx.pageSize);
  const items: UnknownView[] = [];
  const refused: { key: string; message: string }[] = [];
  for (const entry of kept) {
    const read = readRecord(entry, CLAIM_RECORDS);
    if (read.ok) items.push(view(ctx, entry.key, read.value as ClaimRecord, read.record.lease?.expiresAt));
    else refused.push({ key: text(ctx, entry.key), message: text(ctx, read.message) });
  }
  const last = kept[kept.length - 1];
  return { ok: true, items, refused, next: more ? last?.key : undefined };
}

function view(
  ctx: ViewContext,
  key: string,
  claim: ClaimRecord,
  leaseEndedAt: number | undefined,
): UnknownView {
  return {
    key: text(ctx, key),
    id: text(ctx, claim.id),
    owner: text(ctx, claim.owner),
    claimedAt: claim.claimedAt,
    leaseEndedAt: leaseEndedAt,
    content: ctx.reveal.args ? shown(ctx, claim.digest) : hidden('the claimed content', claim.digest),
  };
}
