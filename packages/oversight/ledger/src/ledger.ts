import {
  type Clock,
  type ConsentLedger,
  createKernel,
  createOwnerId,
  isParleyError,
  type Store,
  systemClock,
} from '@parley/core';
import type { AppendResult, LedgerEntry, LedgerInput } from './entry.js';
import { LedgerError, type LedgerErrorCode } from './errors.js';
import { appendStep, CHAIN_RECORDS, pruneStep } from './internal/chain.js';
import { redactValue } from './redact.js';
import { checkSigningKey, type LedgerSigningKey } from './signing.js';
import type { ChainPoint } from './verify.js';

/**
 * Entries a session's chain holds at most; past it an append is refused (`chain_full`).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ENTRIES } from '@parley/ledger';
 *
 * console.log(DEFAULT_MAX_ENTRIES); // 200
 * ```
 */
export const DEFAULT_MAX_ENTRIES = 200;

/**
 * Bytes one entry takes at most as canonical JSON; past it an append is refused (`entry_too_large`).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ENTRY_BYTES } from '@parley/ledger';
 *
 * console.log(DEFAULT_MAX_ENTRY_BYTES); // 4096
 * ```
 */
export const DEFAULT_MAX_ENTRY_BYTES = 4096;

/**
 * How long a chain is kept after its last append (400 days); then the store may drop it.
 *
 * @example
 * ```ts
 * import { DEFAULT_RETENTION_MS } from '@parley/ledger';
 *
 * console.log(DEFAULT_RETENTION_MS / 86_400_000); // 400
 * ```
 */
export const DEFAULT_RETENTION_MS = 400 * 86_400_000;

/**
 * Options of {@link createLedger}.
 *
 * @example
 * ```ts
 * import type { LedgerOptions } from '@parley/ledger';
 * import { createMemoryStore } from '@parley/core';
 *
 * const options: LedgerOptions = { store: createMemoryStore(), redact: { salt: 'per-deployment-secret' } };
 * ```
 */
export interface LedgerOptions {
  readonly store: Store;
  readonly clock?: Clock;
  /** Prefix of the chains' store keys (default `parley:ledger:`). */
  readonly keyPrefix?: string;
  /** Names this replica in the kernel (default `createOwnerId('ledger')`). */
  readonly owner?: string;
  /** Sign every entry with this Ed25519 key. */
  readonly signing?: LedgerSigningKey;
  /** Store request summaries and answer texts as salted digests only. */
  readonly redact?: { readonly salt: string };
  readonly maxEntries?: number;
  readonly maxEntryBytes?: number;
  readonly retentionMs?: number;
}

/**
 * A consent ledger: one append-only, hash-chained chain per session, kept in a `Store`. It is a
 * `@parley/core` `ConsentLedger`: give it to a confirm gate, a tool gate or a pipeline as `ledger`.
 *
 * @example
 * ```ts
 * import type { Ledger } from '@parley/ledger';
 *
 * async function count(ledger: Ledger): Promise<number> {
 *   return (await ledger.entries('chat-1')).length;
 * }
 * ```
 */
export interface Ledger extends ConsentLedger {
  /** Appends one fact to the session's chain with one compare-and-set; never throws for a store failure. */
  append(sessionKey: string, input: LedgerInput): Promise<AppendResult>;
  /** The session's chain, oldest first (empty when none). Rejects with `corrupt_record`, `record_version` or `store_failed`. */
  entries(sessionKey: string): Promise<readonly LedgerEntry[]>;
  /** The session's chain as JSON Lines (one entry per line, each line ending in a newline). */
  exportLines(sessionKey: string): Promise<string>;
  /**
   * Removes the session's entries before seq `before` (export them first), with one
   * compare-and-set; the kept entries and every later append link to the returned `anchor` (the
   * last removed entry's seq and hash), which `verifyLedger(lines, { anchor })` needs from then on.
   */
  prune(sessionKey: string, options: { readonly before: number }): Promise<PruneResult>;
}

/**
 * What `Ledger.prune` answers: how many entries were removed and the chain's anchor, or why
 * nothing was removed.
 *
 * @example
 * ```ts
 * import type { PruneResult } from '@parley/ledger';
 *
 * const pruned: PruneResult = { ok: true, removed: 4, anchor: { seq: 3, hash: 'ab'.repeat(32) } };
 * ```
 */
export type PruneResult =
  | { readonly ok: true; readonly removed: number; readonly anchor: ChainPoint | undefined }
  | { readonly ok: false; readonly code: LedgerErrorCode; readonly message: string };

/**
 * Creates a ledger over a store. Each append runs one pure step through `@parley/core`'s durable
 * kernel: on a fresh read of the session's chain it links the entry to the head and commits the
 * new chain with one compare-and-set, so two replicas never fork a chain and a crash leaves either
 * the whole entry or none.
 *
 * @throws LedgerError `invalid_argument` for a bad option.
 * @example
 * ```ts
 * import { createLedger } from '@parley/ledger';
 * import { createManualClock, createMemoryStore } from '@parley/core';
 *
 * const clock = createManualClock({ now: 1_700_000_000_000 });
 * const ledger = createLedger({ store: createMemoryStore({ clock }), clock });
 * const appended = await ledger.append('chat-1', {
 *   kind: 'decision', confirmationId: 'c1', actionDigest: 'ab'.repeat(32), outcome: 'confirmed', reason: 'reply',
 * });
 * console.log(appended.ok && appended.entry.seq); // 0
 * ```
 */
export function createLedger(options: LedgerOptions): Ledger {
  const clock = options.clock ?? systemClock;
  const prefix = options.keyPrefix ?? 'parley:ledger:';
  if (options.signing !== undefined) checkSigningKey(options.signing);
  const salt = options.redact?.salt;
  if (salt !== undefined && (typeof salt !== 'string' || salt.length < 16)) {
    throw new LedgerError('invalid_argument', 'redact.salt must be a string of at least 16 characters');
  }
  const retentionMs = bound(options.retentionMs, DEFAULT_RETENTION_MS, 10 * 366 * 86_400_000, 'retentionMs');
  const step = appendStep({
    maxEntries: bound(options.maxEntries, DEFAULT_MAX_ENTRIES, 100_000, 'maxEntries'),
    maxEntryBytes: bound(options.maxEntryBytes, DEFAULT_MAX_ENTRY_BYTES, 1 << 20, 'maxEntryBytes'),
    retentionMs,
    signing: options.signing,
  });
  // graceMs 0: a chain lives exactly until its stored deadline (last append + retentionMs)
  const kernel = createKernel({
    store: options.store,
    clock,
    owner: options.owner ?? createOwnerId('ledger'),
    graceMs: 0,
  });
  const keyOf = (sessionKey: string): string => {
    if (!validSession(sessionKey)) {
      throw new LedgerError('invalid_argument', 'a session key is 1–256 characters');
    }
    return prefix + sessionKey;
  };
  const redacted = (input: LedgerInput): LedgerInput => {
    if (salt === undefined) return input;
    if (input.kind === 'request' && typeof input.summary === 'string')
      return { ...input, summary: redactValue(input.summary, salt) };
    if (input.kind === 'answer' && typeof input.text === 'string')
      return { ...input, text: redactValue(input.text, salt) };
    return input;
  };

  async function entries(sessionKey: string): Promise<readonly LedgerEntry[]> {
    try {
      return (await kernel.read(keyOf(sessionKey), CHAIN_RECORDS))?.value.entries ?? [];
    } catch (error) {
      if (isParleyError(error, 'corrupt_record') || isParleyError(error, 'record_version')) {
        throw new LedgerError(error.code, `the chain of ${sessionKey} cannot be read: ${error.message}`, {
          cause: error,
        });
      }
      if (error instanceof LedgerError) throw error;
      throw new LedgerError('store_failed', `the chain of ${sessionKey} cannot be read`, { cause: error });
    }
  }

  return {
    async append(sessionKey, input) {
      if (!validSession(sessionKey))
        return { ok: false, code: 'invalid_argument', message: 'a session key is 1–256 characters' };
      const key = prefix + sessionKey;
      const event = { session: sessionKey, body: redacted(input) };
      const result = await kernel.apply(key, CHAIN_RECORDS, step, event, { maxAttempts: APPEND_ATTEMPTS });
      if (!result.ok) return { ok: false, code: refusalCode(result.code), message: result.message };
      return result.effects[0] as AppendResult; // the step returns exactly one outcome
    },
    entries,
    async exportLines(sessionKey) {
      return (await entries(sessionKey)).map((entry) => `${JSON.stringify(entry)}\n`).join('');
    },
    async prune(sessionKey, { before }) {
      if (!validSession(sessionKey) || !Number.isSafeInteger(before) || before < 0)
        return {
          ok: false,
          code: 'invalid_argument',
          message: 'a session key of 1–256 characters and a seq ≥ 0',
        };
      const event = { before, retentionMs };
      const result = await kernel.apply(prefix + sessionKey, CHAIN_RECORDS, pruneStep, event, {
        maxAttempts: APPEND_ATTEMPTS,
      });
      if (!result.ok) return { ok: false, code: refusalCode(result.code), message: result.message };
      const [done] = result.effects; // the step returns exactly one outcome
      return { ok: true, removed: done?.removed ?? 0, anchor: done?.anchor };
    },
  };
}

/** Lost compare-and-sets an append retries on a fresh read before it gives up (`store_failed`). */
const APPEND_ATTEMPTS = 32;

function validSession(sessionKey: unknown): boolean {
  return typeof sessionKey === 'string' && sessionKey !== '' && sessionKey.length <= 256;
}

function refusalCode(code: string): LedgerErrorCode {
  if (code === 'corrupt_record' || code === 'record_version') return code;
  if (code === 'too_large') return 'chain_full';
  return 'store_failed';
}

function bound(value: number | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new LedgerError('invalid_argument', `${name} must be an integer in 1…${max}`);
  }
  return value;
}
