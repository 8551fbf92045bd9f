/**
 * The primitives every Parley package shares: Standard Schema validation with `missingFields`,
 * an injectable clock and a deadline queue, ids, the error base class, typed events, the `Store`
 * interface with an in-memory default, and safe JSON parsing for untrusted input.
 *
 * @packageDocumentation
 * @module @parley/core
 */
export type {
  StandardSchemaV1,
  StandardSchemaProps,
  StandardResult,
  StandardIssue,
  StandardPathSegment,
  StandardTypes,
  StandardJsonSchemaV1,
  InferInput,
  InferOutput,
} from './standard-schema.js';
export { validate, validateAsync, validateEither, isStandardSchema, formatPath } from './validate.js';
export type { ValidationIssue, ValidationResult } from './validate.js';
export { toJsonSchema } from './json-schema.js';
export type { ToJsonSchemaOptions } from './json-schema.js';
export { ParleyError, isParleyError, CoreError, CORE_ERROR_CODES } from './errors.js';
export type { ParleyErrorOptions, CoreErrorCode } from './errors.js';
export { systemClock, assertTimeoutMs, MAX_TIMEOUT_MS } from './clock.js';
export type { Clock, TimerHandle, TimerOptions } from './clock.js';
export { createManualClock } from './manual-clock.js';
export type { ManualClock, ManualClockOptions } from './manual-clock.js';
export { createDeadlineQueue } from './deadline-queue.js';
export type { DeadlineQueue, DeadlineHandle, DeadlineQueueOptions } from './deadline-queue.js';
export { generateId, createIdGenerator, createSequentialIds } from './ids.js';
export type { IdGenerator, IdGeneratorOptions } from './ids.js';
export { createEmitter } from './emitter.js';
export type { Emitter, EmitterOptions, EventMap, Unsubscribe } from './emitter.js';
export { createMemoryStore } from './memory-store.js';
export { assertTtlMs, MAX_TTL_MS, encodeStoreKey, decodeStoreKey } from './store-keys.js';
export type {
  Store,
  StoreEntry,
  StoreChange,
  StoreWatchOptions,
  StoreSetOptions,
  CompareAndSetResult,
} from './store.js';
export type { MemoryStoreOptions } from './memory-store.js';
export { parseJson, safeParseJson, stringifyJson, DEFAULT_JSON_LIMITS } from './json.js';
export { canonicalJson } from './canonical.js';
export { copyWith } from './copy-with.js';
export { createRecentMap } from './recent-map.js';
export { createChurnMap } from './churn-map.js';
export type { ChurnMap } from './churn-map.js';
export { DeadlineHeap } from './internal/heap.js';
export type { HeapItem } from './internal/heap.js';
export type { RecentMap, RecentMapOptions } from './recent-map.js';
export { TOOL_FAILURE_STATUSES } from './tool-failure.js';
export type { ToolFailureStatus } from './tool-failure.js';
export { appendConsent, appendConsentFacts, isConsentLedger } from './consent.js';
export type { ConsentAppendResult, ConsentFact, ConsentLedger, RedactedValue } from './consent.js';
export type { JsonValue, JsonLimits, JsonParseResult, JsonErrorCode } from './json.js';
export { createKernel, DEFAULT_GRACE_MS, DEFAULT_MAX_ATTEMPTS } from './kernel/kernel.js';
export type { KernelOptions } from './kernel/kernel.js';
export { runEffects, DEFAULT_MAX_ROUNDS } from './kernel/run-effects.js';
export { createOwnerId } from './kernel/owner.js';
export { DEFAULT_LIST_LIMIT } from './kernel/list.js';
export type { KernelList, ListedRecord, RefusedRecord } from './kernel/list.js';
export { KernelError, KERNEL_ERROR_CODES } from './kernel/errors.js';
export type { KernelErrorCode } from './kernel/errors.js';
export { CLAIM_RECORDS, DEFAULT_CLAIM_RETAIN_MS } from './kernel/claims.js';
export type { ClaimRecord } from './kernel/claims.js';
export { addSettled, findSettled, readJournal, DEFAULT_JOURNAL_LIMITS } from './kernel/journal.js';
export type { SettledEntry, SettledJournal, JournalLimits } from './kernel/journal.js';
export { KERNEL_REFUSAL_CODES } from './kernel/types.js';
export type { ApplyResult, ClaimRequest, ClaimResult, HeldClaim, Kernel } from './kernel/api.js';
export type {
  Committed,
  KernelRecord,
  KernelRefusal,
  KernelRefusalCode,
  KernelStep,
  Lease,
  LeaseState,
  RecordCodec,
  StepResult,
} from './kernel/types.js';
