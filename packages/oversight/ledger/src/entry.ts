import { canonicalJson, type ConsentFact, type RedactedValue } from '@parley/core';
import type { LedgerErrorCode } from './errors.js';
import { isHex, sha256Hex } from './internal/hash.js';

/**
 * The format version of a ledger entry; an entry of another version is refused, never read.
 *
 * @example
 * ```ts
 * import { LEDGER_FORMAT_VERSION } from '@parley/ledger';
 *
 * console.log(LEDGER_FORMAT_VERSION); // 1
 * ```
 */
export const LEDGER_FORMAT_VERSION = 1 as const;

/**
 * The `prev` of a chain's first entry: 64 zeros.
 *
 * @example
 * ```ts
 * import { GENESIS_HASH } from '@parley/ledger';
 *
 * console.log(GENESIS_HASH.length); // 64
 * ```
 */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The kinds of entry a chain holds, in the order a confirmation produces them.
 *
 * @example
 * ```ts
 * import { ENTRY_KINDS } from '@parley/ledger';
 *
 * console.log(ENTRY_KINDS.join(' ')); // request prompt_delivered answer decision authorization effect
 * ```
 */
export const ENTRY_KINDS = [
  'request',
  'prompt_delivered',
  'answer',
  'decision',
  'authorization',
  'effect',
] as const;

/**
 * A kind of {@link LedgerEntry}.
 *
 * @example
 * ```ts
 * import type { EntryKind } from '@parley/ledger';
 *
 * const kind: EntryKind = 'decision';
 * ```
 */
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * A value replaced by its salted SHA-256 digest (see `redactValue`): the chain commits to the
 * digest, so it stays verifiable, and whoever holds the value and the salt can show it matches.
 *
 * @example
 * ```ts
 * import type { Redacted } from '@parley/ledger';
 *
 * const summary: Redacted = { redacted: 'sha256:9f2c…' };
 * ```
 */
export type Redacted = RedactedValue;

/**
 * What a host, the gates (their `ledger` option) or `recordConfirmations` append: one fact of a
 * confirmation, by kind — `@parley/core`'s `ConsentFact`.
 *
 * - `request`: the action's digest, the summary shown, the approver policy; `ref` names the request
 *   before the gate gave it an id (its decision follows it with the same action digest).
 * - `prompt_delivered`: a prompt (or step, or re-prompt: `attempt`) whose send resolved, with the
 *   digests of the exact text and card and the platform's message id and stamp when known.
 * - `answer`: the reply or click that decided, its author as the platform reports it, its text.
 * - `decision`: the outcome and reason code as the gate recorded them.
 * - `authorization`: the single authorization of a confirmed decision (needs that decision).
 * - `effect`: the outcome as the host reports it, or `unknown` (needs the authorization).
 *
 * @example
 * ```ts
 * import type { LedgerInput } from '@parley/ledger';
 *
 * const input: LedgerInput = { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded' };
 * ```
 */
export type LedgerInput = ConsentFact;

/**
 * One link of a session's chain, as stored and as exported (one JSON line each). `hash` is the
 * SHA-256 of the canonical JSON of every other field but `sig`; `prev` is the previous entry's
 * `hash` ({@link GENESIS_HASH} for `seq` 0); `sig`, when the ledger signs, is the Ed25519
 * signature of `hash` by the key named `keyId`.
 *
 * @example
 * ```ts
 * import type { LedgerEntry } from '@parley/ledger';
 *
 * const seen = (entry: LedgerEntry): string => `${entry.seq} ${entry.body.kind}`;
 * ```
 */
export interface LedgerEntry {
  readonly v: typeof LEDGER_FORMAT_VERSION;
  readonly session: string;
  readonly seq: number;
  /** Epoch ms of the append, from the ledger's clock. */
  readonly at: number;
  readonly body: LedgerInput;
  readonly prev: string;
  readonly keyId?: string;
  readonly hash: string;
  readonly sig?: string;
}

/**
 * The result of `Ledger.append`: the entry (an identical fact appended again is the same
 * entry, `duplicate: true`), or a refusal with nothing written.
 *
 * @example
 * ```ts
 * import type { AppendResult } from '@parley/ledger';
 *
 * const refused: AppendResult = { ok: false, code: 'no_consent', message: 'no authorization for c1 is recorded' };
 * ```
 */
export type AppendResult =
  | { readonly ok: true; readonly entry: LedgerEntry; readonly duplicate: boolean }
  | { readonly ok: false; readonly code: LedgerErrorCode; readonly message: string };

/** The hash of an entry: SHA-256 of the canonical JSON of every field but `hash` and `sig`. */
export function hashEntry(entry: Omit<LedgerEntry, 'hash' | 'sig'>): string {
  const { v, session, seq, at, body, prev, keyId } = entry;
  return sha256Hex(
    canonicalJson({ v, session, seq, at, body, prev, ...(keyId === undefined ? {} : { keyId }) }),
  );
}

/** The key under which a chain holds one fact: a second entry with it is a duplicate or a conflict. */
export function factKey(body: LedgerInput): string {
  switch (body.kind) {
    case 'request':
      return `request:${body.ref}`;
    case 'prompt_delivered':
      return `prompt:${body.confirmationId}:${body.step}:${body.attempt}`;
    case 'answer':
      return `answer:${body.confirmationId}:${body.eventId ?? ''}:${body.authorId}`;
    default:
      return `${body.kind}:${body.confirmationId}`;
  }
}

/** Why a value is not a ledger entry of this version, or the entry it is. */
export type EntryCheck =
  | { readonly ok: true; readonly entry: LedgerEntry }
  | { readonly ok: false; readonly code: 'corrupt_record' | 'record_version'; readonly message: string };

/** Checks that `value` is a well-formed entry of {@link LEDGER_FORMAT_VERSION} (not its hash). */
export function checkEntry(value: unknown): EntryCheck {
  if (!isObject(value)) return corrupt('not a JSON object');
  if (value.v !== LEDGER_FORMAT_VERSION) {
    return {
      ok: false,
      code: 'record_version',
      message: `entry format ${String(value.v)}, expected ${LEDGER_FORMAT_VERSION}`,
    };
  }
  const { session, seq, at, body, prev, hash, keyId, sig } = value;
  if (typeof session !== 'string' || session === '') return corrupt('no session');
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) return corrupt('seq is not a non-negative integer');
  if (typeof at !== 'number' || !Number.isFinite(at)) return corrupt('at is not a time');
  if (!isHex(prev, 64) || !isHex(hash, 64)) return corrupt('prev or hash is not 64 hex characters');
  if (keyId !== undefined && (typeof keyId !== 'string' || keyId === ''))
    return corrupt('keyId is not a name');
  if (sig !== undefined && !isHex(sig, 128)) return corrupt('sig is not 128 hex characters');
  const problem = bodyProblem(body);
  if (problem !== undefined) return corrupt(problem);
  return { ok: true, entry: value as unknown as LedgerEntry }; // every field checked above
}

const REQUIRED: Record<EntryKind, readonly string[]> = {
  request: ['ref', 'actionName', 'actionDigest', 'requester'],
  prompt_delivered: ['confirmationId'],
  answer: ['confirmationId', 'authorId', 'via'],
  decision: ['confirmationId', 'actionDigest', 'outcome', 'reason'],
  authorization: ['confirmationId', 'actionDigest'],
  effect: ['confirmationId', 'outcome'],
};

function bodyProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'body is not an object';
  const kind = body.kind;
  if (typeof kind !== 'string' || !(ENTRY_KINDS as readonly string[]).includes(kind))
    return 'unknown entry kind';
  for (const field of REQUIRED[kind as EntryKind]) {
    if (typeof body[field] !== 'string' || body[field] === '') return `${kind} has no ${field}`;
  }
  if (
    kind === 'prompt_delivered' &&
    !(Number.isSafeInteger(body.step) && Number.isSafeInteger(body.attempt))
  ) {
    return 'prompt_delivered has no step or attempt';
  }
  return undefined;
}

function corrupt(message: string): EntryCheck {
  return { ok: false, code: 'corrupt_record', message };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
