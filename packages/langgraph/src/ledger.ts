import type { JsonValue, Store } from '@parley/core';
import type { ConfirmAnswer } from './interrupt.js';

/** How long an answer is kept in the store: 7 days. */
export const LEDGER_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How long a claim to resume an interrupt holds: 5 minutes. A resumer that fails releases it at
 * once; one whose process died holds it until then, and the next resumer takes over after.
 */
export const RESUME_LEASE_MS = 5 * 60 * 1000;

/**
 * The answers a thread's interrupts were given, by thread + interrupt id + request key, and who
 * resumed each interrupt: kept in the Parley `Store` so that a restarted process neither asks the
 * person again for an answer given before the restart nor resumes an interrupt twice.
 */
export interface AnswerLedger {
  /** The answer recorded for this request, when it was for the same action (same digest). */
  answered(
    threadId: string,
    interruptId: string,
    key: string,
    digest: string,
  ): Promise<ConfirmAnswer | undefined>;
  /**
   * Records the answer unless one for the same action is recorded already; returns the one that
   * counts (the first: a second authorization of the same decision is refused, not an answer).
   */
  record(threadId: string, interruptId: string, key: string, answer: ConfirmAnswer): Promise<ConfirmAnswer>;
  /** Takes the right to resume the interrupt; false when someone holds it. */
  claim(threadId: string, interruptId: string): Promise<boolean>;
  /** Gives the right back (the resume failed). */
  release(threadId: string, interruptId: string): Promise<void>;
}

/** A ledger in `store` under `prefix`; without a store, one in this run's memory only. */
export function createAnswerLedger(store: Store | undefined, prefix: string): AnswerLedger {
  const local = new Map<string, JsonValue>();
  const at = (...parts: readonly string[]): string => `${prefix}${parts.join('\u0000')}`;
  const get = async (key: string): Promise<JsonValue | undefined> =>
    store === undefined ? local.get(key) : store.get(key);
  return {
    async answered(threadId, interruptId, key, digest) {
      const found = await get(at('answer', threadId, interruptId, key));
      return isAnswer(found) && found.digest === digest ? found : undefined;
    },
    async record(threadId, interruptId, key, answer) {
      const at_ = at('answer', threadId, interruptId, key);
      for (;;) {
        const entry = store === undefined ? undefined : await store.getEntry(at_);
        const found = store === undefined ? local.get(at_) : entry?.value;
        if (isAnswer(found) && found.digest === answer.digest) return found;
        if (store === undefined) {
          local.set(at_, { ...answer });
          return answer;
        }
        const written = await store.compareAndSet(
          at_,
          entry?.version ?? null,
          { ...answer },
          { ttlMs: LEDGER_TTL_MS },
        );
        if (written.ok) return answer;
      }
    },
    async claim(threadId, interruptId) {
      const key = at('resumed', threadId, interruptId);
      if (store === undefined) {
        if (local.has(key)) return false;
        local.set(key, true);
        return true;
      }
      return (await store.compareAndSet(key, null, true, { ttlMs: RESUME_LEASE_MS })).ok;
    },
    async release(threadId, interruptId) {
      const key = at('resumed', threadId, interruptId);
      if (store === undefined) local.delete(key);
      else await store.delete(key);
    },
  };
}

function isAnswer(value: JsonValue | undefined): value is JsonValue & ConfirmAnswer {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { outcome?: unknown }).outcome === 'string' &&
    typeof (value as { decisionId?: unknown }).decisionId === 'string' &&
    typeof (value as { digest?: unknown }).digest === 'string'
  );
}
