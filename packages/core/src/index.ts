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
export type { JsonValue, JsonLimits, JsonParseResult, JsonErrorCode } from './json.js';
