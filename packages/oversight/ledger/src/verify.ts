import { safeParseJson } from '@parley/core';
import { checkEntry, GENESIS_HASH, hashEntry, type LedgerEntry } from './entry.js';
import { verifyHash } from './signing.js';

/**
 * What {@link verifyLedger} reports for the first bad entry.
 *
 * @example
 * ```ts
 * import { TAMPER_KINDS } from '@parley/ledger';
 *
 * console.log(TAMPER_KINDS.includes('forked')); // true
 * ```
 */
export const TAMPER_KINDS = [
  'corrupt',
  'version',
  'edited',
  'deleted',
  'reordered',
  'inserted',
  'forked',
  'signature',
] as const;

/**
 * A kind of tampering {@link verifyLedger} names.
 *
 * @example
 * ```ts
 * import type { TamperKind } from '@parley/ledger';
 *
 * const kind: TamperKind = 'deleted';
 * ```
 */
export type TamperKind = (typeof TAMPER_KINDS)[number];

/**
 * A chain position a verifier trusts from elsewhere: a head kept outside the store, or the last
 * entry pruned before an exported file begins.
 *
 * @example
 * ```ts
 * import type { ChainPoint } from '@parley/ledger';
 *
 * const head: ChainPoint = { seq: 5, hash: 'ab'.repeat(32) };
 * ```
 */
export interface ChainPoint {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Options of {@link verifyLedger}.
 *
 * @example
 * ```ts
 * import type { VerifyOptions } from '@parley/ledger';
 *
 * const options: VerifyOptions = { publicKeys: { 'prod-2026': 'cd'.repeat(32) } };
 * ```
 */
export interface VerifyOptions {
  /** Require every entry to be signed by one of these keys (key id → Ed25519 public key, hex). */
  readonly publicKeys?: Readonly<Record<string, string>>;
  /** The file starts after this entry (the chain before it was pruned). */
  readonly anchor?: ChainPoint;
  /** The chain must end exactly here (catches entries cut from the end). */
  readonly head?: ChainPoint;
}

/**
 * The verdict of {@link verifyLedger}: the chain holds, or the first bad entry (1-based `line`,
 * its `seq` when it has one) and what was done to it.
 *
 * @example
 * ```ts
 * import type { VerifyResult } from '@parley/ledger';
 *
 * const bad: VerifyResult = { ok: false, code: 'edited', line: 3, seq: 2, message: 'entry 2 does not match its hash' };
 * ```
 */
export type VerifyResult =
  | { readonly ok: true; readonly entries: number; readonly head: ChainPoint | undefined }
  | {
      readonly ok: false;
      readonly code: TamperKind;
      readonly line: number;
      readonly seq?: number;
      readonly message: string;
    };

/**
 * Verifies an exported chain offline, in time linear in its size: every entry's hash, every link,
 * the sequence, the session and (with `publicKeys`) every signature. Names the first bad entry
 * and whether it was edited, deleted, reordered, inserted or forked. Accepts JSON Lines text or
 * its lines; blank lines are skipped.
 *
 * @example
 * ```ts
 * import { createLedger, verifyLedger } from '@parley/ledger';
 * import { createMemoryStore } from '@parley/core';
 *
 * const ledger = createLedger({ store: createMemoryStore() });
 * for (const outcome of ['confirmed', 'cancelled']) {
 *   await ledger.append('chat-1', { kind: 'decision', confirmationId: outcome, actionDigest: 'ab'.repeat(32), outcome, reason: 'reply' });
 * }
 * const lines = (await ledger.exportLines('chat-1')).trim().split('\n');
 * console.log(verifyLedger(lines).ok); // true
 * console.log(verifyLedger([lines[1] as string]).ok === false && 'deleted'); // deleted
 * ```
 */
export function verifyLedger(input: string | readonly string[], options: VerifyOptions = {}): VerifyResult {
  const raw = typeof input === 'string' ? input.split('\n') : input;
  const lines: { line: number; entry?: LedgerEntry; bad?: Bad }[] = [];
  const lineOfSeq = new Map<number, number>(); // the last position holding each seq, for "reordered"
  raw.forEach((text, index) => {
    if (text.trim() === '') return;
    const parsed = parseLine(text);
    if ('bad' in parsed) lines.push({ line: index + 1, bad: parsed.bad });
    else {
      lineOfSeq.set(parsed.entry.seq, lines.length);
      lines.push({ line: index + 1, entry: parsed.entry });
    }
  });
  let expected = options.anchor === undefined ? 0 : options.anchor.seq + 1;
  let prev = options.anchor?.hash ?? GENESIS_HASH;
  let session: string | undefined;
  const accepted = new Map<number, LedgerEntry>();
  for (let i = 0; i < lines.length; i++) {
    const { line, entry, bad } = lines[i] as (typeof lines)[number];
    if (entry === undefined) return { ok: false, line, ...(bad as Bad) };
    const fail = (code: TamperKind, message: string, at = line, seq = entry.seq): VerifyResult => ({
      ok: false,
      code,
      line: at,
      seq,
      message,
    });
    session ??= entry.session;
    if (entry.session !== session)
      return fail('inserted', `entry ${entry.seq} belongs to session ${entry.session}, not ${session}`);
    if (hashEntry(entry) !== entry.hash) return fail('edited', `entry ${entry.seq} does not match its hash`);
    const signature = signatureProblem(entry, options.publicKeys);
    if (signature !== undefined) return fail('signature', signature);
    if (entry.seq > expected) {
      const later = lineOfSeq.get(expected);
      return later !== undefined && later > i
        ? fail('reordered', `entry ${entry.seq} comes before entry ${expected}`)
        : fail('deleted', `entries ${expected}…${entry.seq - 1} are missing before entry ${entry.seq}`);
    }
    if (entry.seq < expected) {
      const twin = accepted.get(entry.seq) as LedgerEntry; // every seq below `expected` was accepted
      if (twin.hash === entry.hash) return fail('inserted', `entry ${entry.seq} appears twice`);
      return twin.prev === entry.prev
        ? fail('forked', `two different entries ${entry.seq} follow the same entry`)
        : fail('inserted', `entry ${entry.seq} is not part of the chain`);
    }
    if (entry.prev !== prev) {
      const next = lines[i + 1]?.entry;
      if (next !== undefined && next.seq === entry.seq && next.prev === prev) {
        return fail('inserted', `entry ${entry.seq} does not follow the entry before it; the next one does`);
      }
      const before = lines[i - 1];
      return before === undefined
        ? fail('edited', `entry ${entry.seq} does not follow the chain's start`)
        : fail(
            'edited',
            `entry ${entry.seq - 1} was rewritten: entry ${entry.seq} committed to another hash`,
            before.line,
            entry.seq - 1,
          );
    }
    accepted.set(entry.seq, entry);
    prev = entry.hash;
    expected++;
  }
  const last = expected === 0 && options.anchor === undefined ? undefined : { seq: expected - 1, hash: prev };
  if (options.head !== undefined && (last?.seq !== options.head.seq || last.hash !== options.head.hash)) {
    const end = (lines[lines.length - 1]?.line ?? 0) + 1;
    if (last === undefined || last.seq < options.head.seq) {
      return {
        ok: false,
        code: 'deleted',
        line: end,
        seq: (last?.seq ?? -1) + 1,
        message: `the chain ends before its head ${options.head.seq}`,
      };
    }
    return {
      ok: false,
      code: last.seq > options.head.seq ? 'inserted' : 'edited',
      line: end - 1,
      seq: last.seq,
      message: 'the chain does not end at the head given',
    };
  }
  return { ok: true, entries: accepted.size, head: last };
}

type Bad = { readonly code: 'corrupt' | 'version'; readonly message: string };

function parseLine(text: string): { entry: LedgerEntry } | { bad: Bad } {
  const parsed = safeParseJson(text);
  if (!parsed.ok) return { bad: { code: 'corrupt', message: `not JSON: ${parsed.message}` } };
  const checked = checkEntry(parsed.value);
  if (checked.ok) return { entry: checked.entry };
  return {
    bad: { code: checked.code === 'record_version' ? 'version' : 'corrupt', message: checked.message },
  };
}

function signatureProblem(
  entry: LedgerEntry,
  keys: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (keys === undefined) return undefined;
  if (entry.keyId === undefined || entry.sig === undefined) return `entry ${entry.seq} is not signed`;
  const key = Object.hasOwn(keys, entry.keyId) ? keys[entry.keyId] : undefined;
  if (key === undefined) return `entry ${entry.seq} is signed by unknown key ${entry.keyId}`;
  return verifyHash(entry.hash, entry.sig, key)
    ? undefined
    : `entry ${entry.seq}'s signature does not verify`;
}
