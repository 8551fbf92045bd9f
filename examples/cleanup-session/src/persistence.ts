// Where a cleanup session lives in the Store. The session record is a stored flow session of
// @parley/fsm (compare-and-set per step, drafts, retries on the clock); the follow-up reminder is an
// @parley/fsm follow-up; the review queues and the audit summary are plain keys.
import type { Clock, IdGenerator, JsonValue, Store } from '@parley/core';
import { createFlowSessionStore, type FlowSessionRefusal, type FlowSessionStore } from '@parley/chat-flow';
import { type CleanupStep, cleanupFlow } from './flow.js';
import { redactJson } from './redact.js';
import { SLOT_FILLING_STEPS } from './replies.js';
import type { HostData } from './session-json.js';

export const DEFAULT_SAVE_DELAYS_MS = [1_000, 2_000, 4_000] as const;
export const sessionKey = (id: string): string => `cleanup:session:${id}`;
export const auditKey = (id: string): string => `cleanup:audit:${id}`;
export const followUpKey = (id: string): string => `cleanup:followup:${id}`;
const reviewPrefix = (queue: string): string => `cleanup:review:${queue}:`;

/** Waits on the injected clock (the scripted run moves a manual clock; the interactive run waits). */
export type Wait = (ms: number) => Promise<void>;

/** The cleanup sessions in the Store: slot-filling drafts, store writes and the audit save retried on `delays`. */
export function createCleanupSessions(
  store: Store,
  options: { readonly clock: Clock; readonly wait?: Wait; readonly saveDelaysMs?: readonly number[] },
): FlowSessionStore<CleanupStep, unknown, HostData> {
  const delays = options.saveDelaysMs ?? DEFAULT_SAVE_DELAYS_MS;
  return createFlowSessionStore<CleanupStep, unknown, HostData>(cleanupFlow, {
    store,
    clock: options.clock,
    keyPrefix: sessionKey(''),
    draftSteps: SLOT_FILLING_STEPS,
    saveRetryDelaysMs: delays,
    effectRetryDelaysMs: delays,
    ...(options.wait && { wait: options.wait }),
  });
}

/** Thrown when another host wrote the session since this one read it. */
export class SessionConflictError extends Error {
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} was changed by another host; reload it before going on`);
    this.name = 'SessionConflictError';
  }
}

/** A refused write as the error the host's callers handle: a lost race, or the store's own failure. */
export function refusedError(sessionId: string, refusal: FlowSessionRefusal): Error {
  if (refusal.code === 'conflict' || refusal.code === 'stale') return new SessionConflictError(sessionId);
  if (refusal.code === 'store_failed' && refusal.cause instanceof Error) return refusal.cause;
  return new Error(`${refusal.code}: ${refusal.message}`);
}

export interface ReviewQueues {
  /** Adds an item to a manual-review queue, stamped with the time and redacted; returns its key. */
  enqueue(queue: string, item: { readonly [field: string]: JsonValue }): Promise<string>;
  /** Every item of a queue, oldest first. */
  list(queue: string): Promise<JsonValue[]>;
}

export function createReviewQueues(store: Store, clock: Clock, generateId: IdGenerator): ReviewQueues {
  return {
    async enqueue(queue, item) {
      const key = `${reviewPrefix(queue)}${generateId()}`;
      await store.set(key, redactJson({ ...item, at: new Date(clock.now()).toISOString() }));
      return key;
    },
    async list(queue) {
      const items: JsonValue[] = [];
      for await (const entry of store.list(reviewPrefix(queue))) items.push(entry.value);
      const at = (item: JsonValue): string => String((item as { at?: unknown }).at);
      return items.sort((a, b) => at(a).localeCompare(at(b)));
    },
  };
}
