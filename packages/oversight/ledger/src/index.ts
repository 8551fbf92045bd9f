/**
 * A consent ledger anyone can verify: an append-only, hash-chained record per session of who saw
 * what, who approved and what ran, written through the durable kernel with compare-and-set,
 * exported as JSON Lines and verified offline (optionally with Ed25519 signatures per deployment
 * key), with salted-digest redaction.
 *
 * @packageDocumentation
 * @module @parley/ledger
 */
export {
  createLedger,
  DEFAULT_MAX_ENTRIES,
  DEFAULT_MAX_ENTRY_BYTES,
  DEFAULT_RETENTION_MS,
} from './ledger.js';
export type { Ledger, LedgerOptions, PruneResult } from './ledger.js';
export { ENTRY_KINDS, GENESIS_HASH, LEDGER_FORMAT_VERSION } from './entry.js';
export type { AppendResult, EntryKind, LedgerEntry, LedgerInput, Redacted } from './entry.js';
export { verifyLedger, TAMPER_KINDS } from './verify.js';
export type { ChainPoint, TamperKind, VerifyOptions, VerifyResult } from './verify.js';
export { readStoredChain } from './stored.js';
export type { StoredChain } from './stored.js';
export { publicKeyOf } from './signing.js';
export type { LedgerSigningKey } from './signing.js';
export { redactValue, matchesRedacted } from './redact.js';
export { recordConfirmations } from './confirm.js';
export type { ConfirmationRecorder, RecordConfirmationsOptions, LedgerRunResult } from './confirm.js';
export { LedgerError, LEDGER_ERROR_CODES } from './errors.js';
export type { LedgerErrorCode } from './errors.js';
export type { RunResult } from './former-names.js';
