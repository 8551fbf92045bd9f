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
import { utf8Length } from './hash.js';

/** A session's chain as stored: the entries in order; the last one is the head. */
export interface ChainRecord {
  readonly session: string;
  readonly entries: readonly LedgerEntry[];
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
    const link = {
      v: LEDGER_FORMAT_VERSION,
      session,
      seq: entries.length,
      at: now,
      body,
      prev: head?.hash ?? GENESIS_HASH,
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
      value: { session, entries: [...entries, entry] },
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
  const { session, entries } = data as { session?: unknown; entries?: unknown };
  if (typeof session !== 'string' || !Array.isArray(entries)) return false;
  let prev = GENESIS_HASH;
  for (let seq = 0; seq < entries.length; seq++) {
    const checked = checkEntry(entries[seq]);
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
