// The chain as one kernel record per session, and the pure step that appends to it.
import { canonicalJson, type JsonValue, type KernelStep, type RecordCodec } from '@parley/core';
import {
  type AppendResult,
  checkEntry,
  factKey,
  GENESIS_HASH,
  hashEntry,
  LEDGER_FORMAT_VERSION,
  type LedgerEntry,
  type LedgerInput,
} from '../entry.js';
import type { LedgerErrorCode } from '../errors.js';
import { signHash, type LedgerSigningKey } from '../signing.js';
import { isHex, utf8Length } from './hash.js';

/** A session's chain as stored: the entries in order; the last one is the head. */
export interface ChainRecord {
  readonly session: string;
  readonly entries: readonly LedgerEntry[];
  /** After a prune: the last removed entry's seq and hash, which the first kept one links to. */
  readonly anchor?: { readonly seq: number; readonly hash: string };
}

/** What the step needs besides the record: the bounds, the signing key, the retention. */
export interface ChainRules {
  readonly maxEntries: number;
  readonly maxEntryBytes: number;
  readonly retentionMs: number;
  readonly signing: LedgerSigningKey | undefined;
}

/** The kernel codec of a chain: kind `parley.ledger.chain`, version 1; every entry and link checked. */
export const CHAIN_RECORDS: RecordCodec<ChainRecord> = {
  kind: 'parley.ledger.chain',
  version: 1,
  decode: (data) => (isChain(data) ? data : undefined),
  // a ChainRecord is plain JSON (checked on decode); interfaces only lack JsonValue's index signature
  encode: (value) => value as unknown as JsonValue,
};

/** The append step: refuses past the bounds and without consent, absorbs a duplicate, links and signs. */
export function appendStep(
  rules: ChainRules,
): KernelStep<ChainRecord, { session: string; body: LedgerInput }, AppendResult> {
  return (current, { session, body }, now) => {
    const entries = current?.entries ?? [];
    const key = factKey(body);
    const text = canonicalJson(body);
    for (const entry of entries) {
      if (factKey(entry.body) !== key) continue;
      if (canonicalJson(entry.body) === text) return answer(current, { ok: true, entry, duplicate: true });
      return answer(current, refuse('entry_conflict', `${key} is already recorded with other content`));
    }
    const consent = consentProblem(entries, body);
    if (consent !== undefined) return answer(current, refuse('no_consent', consent));
    if (entries.length >= rules.maxEntries) {
      return answer(
        current,
        refuse('chain_full', `the chain of ${session} holds ${rules.maxEntries} entries`),
      );
    }
    const head = entries[entries.length - 1];
    const anchor = current?.anchor;
    const link = {
      v: LEDGER_FORMAT_VERSION,
      session,
      seq: (anchor === undefined ? 0 : anchor.seq + 1) + entries.length,
      at: now,
      body,
      prev: head?.hash ?? anchor?.hash ?? GENESIS_HASH,
      ...(rules.signing === undefined ? {} : { keyId: rules.signing.keyId }),
    };
    const hash = hashEntry(link);
    const entry: LedgerEntry = {
      ...link,
      hash,
      ...(rules.signing === undefined ? {} : { sig: signHash(hash, rules.signing.privateKey) }),
    };
    const bytes = utf8Length(canonicalJson(entry));
    if (bytes > rules.maxEntryBytes) {
      return answer(
        current,
        refuse('entry_too_large', `the entry takes ${bytes} bytes (at most ${rules.maxEntryBytes})`),
      );
    }
    return {
      value: { session, entries: [...entries, entry], ...(anchor === undefined ? {} : { anchor }) },
      effects: [{ ok: true, entry, duplicate: false }],
      deadlineAt: now + rules.retentionMs,
    };
  };
}

/** Fail closed: an authorization needs its confirmed decision, an effect its authorization. */
function consentProblem(entries: readonly LedgerEntry[], body: LedgerInput): string | undefined {
  if (body.kind !== 'authorization' && body.kind !== 'effect') return undefined;
  const id = body.confirmationId;
  const has = (test: (b: LedgerInput) => boolean): boolean => entries.some((e) => test(e.body));
  if (body.kind === 'authorization') {
    return has(
      (b) =>
        b.kind === 'decision' &&
        b.confirmationId === id &&
        b.outcome === 'confirmed' &&
        b.actionDigest === body.actionDigest,
    )
      ? undefined
      : `no confirmed decision for ${id} with that action digest is recorded`;
  }
  return has((b) => b.kind === 'authorization' && b.confirmationId === id)
    ? undefined
    : `no authorization for ${id} is recorded`;
}

function answer(
  current: ChainRecord | undefined,
  outcome: AppendResult,
): { value: ChainRecord | undefined; effects: AppendResult[] } {
  return { value: current, effects: [outcome] }; // the value it was given: the kernel writes nothing
}

function refuse(code: LedgerErrorCode, message: string): AppendResult {
  return { ok: false, code, message };
}

function isChain(data: unknown): data is ChainRecord {
  if (typeof data !== 'object' || data === null) return false;
  const { session, entries, anchor } = data as { session?: unknown; entries?: unknown; anchor?: unknown };
  if (typeof session !== 'string' || !Array.isArray(entries)) return false;
  if (anchor !== undefined && !isAnchor(anchor)) return false;
  let prev = anchor?.hash ?? GENESIS_HASH;
  const base = anchor === undefined ? 0 : anchor.seq + 1;
  for (let index = 0; index < entries.length; index++) {
    const seq = base + index;
    const checked = checkEntry(entries[index]);
    if (!checked.ok) return false;
    const { entry } = checked;
    if (
      entry.session !== session ||
      entry.seq !== seq ||
      entry.prev !== prev ||
      hashEntry(entry) !== entry.hash
    )
      return false;
    prev = entry.hash;
  }
  return true;
}

function isAnchor(value: unknown): value is { seq: number; hash: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { seq, hash } = value as { seq?: unknown; hash?: unknown };
  return Number.isSafeInteger(seq) && (seq as number) >= 0 && isHex(hash, 64);
}

/** What a prune did: how many entries it removed, and the anchor the kept ones now link to. */
export interface PruneOutcome {
  readonly removed: number;
  readonly anchor: { readonly seq: number; readonly hash: string } | undefined;
}

/**
 * The prune step: removes the entries before `before` (a seq), keeping the last removed one's seq
 * and hash as the chain's anchor; the rest, and every later append, still link to it.
 */
export const pruneStep: KernelStep<ChainRecord, { before: number; retentionMs: number }, PruneOutcome> = (
  current,
  { before, retentionMs },
  now,
) => {
  const kept = current?.entries.filter((entry) => entry.seq >= before) ?? [];
  const removed = current === undefined ? [] : current.entries.slice(0, current.entries.length - kept.length);
  const last = removed[removed.length - 1];
  if (current === undefined || last === undefined) {
    return { value: current, effects: [{ removed: 0, anchor: current?.anchor }] };
  }
  const anchor = { seq: last.seq, hash: last.hash };
  return {
    value: { session: current.session, entries: kept, anchor },
    effects: [{ removed: removed.length, anchor }],
    deadlineAt: now + retentionMs,
  };
};
