// Session records, plans, review queues and audit summaries in a core Store. Records are written
// with compareAndSet against the version last read, so two hosts never overwrite each other's step.
import type { IdGenerator, JsonValue, Store } from '@parley/core';
import type { SessionRecord } from './session-json.js';

export const KEY_PREFIX = 'cleanup:';
export const sessionKey = (id: string): string => `${KEY_PREFIX}session:${id}`;
export const auditKey = (id: string): string => `${KEY_PREFIX}audit:${id}`;
export const reviewPrefix = (queue: string): string => `${KEY_PREFIX}review:${queue}:`;

/** Waits on the injected clock (the scripted run moves a manual clock; the interactive run waits). */
export type Wait = (ms: number) => Promise<void>;

/** Tries `attempt` up to `delaysMs.length + 1` times, waiting between tries; the last error is thrown. */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  options: {
    readonly delaysMs: readonly number[];
    readonly wait: Wait;
    /** False stops at once (e.g. a version conflict, which waiting cannot fix). */
    readonly retryable?: (error: unknown) => boolean;
    readonly onFailure?: (error: unknown, n: number) => void;
  },
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      options.onFailure?.(error, n);
      const delay = options.delaysMs[n - 1];
      if (delay === undefined || options.retryable?.(error) === false) throw error;
      await options.wait(delay);
    }
  }
}

/** Thrown when another host wrote the session since this one read it. */
export class SessionConflictError extends Error {
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} was changed by another host; reload it before going on`);
    this.name = 'SessionConflictError';
  }
}

export interface SessionRepository {
  /** The record and its version, or `undefined`. */
  load(id: string): Promise<{ readonly record: SessionRecord; readonly version: number } | undefined>;
  /** Writes the record if nobody else did since `version` (`null`: new); returns the new version. */
  save(record: SessionRecord, version: number | null): Promise<number>;
  /** Adds an item to a manual-review queue; returns its key. */
  enqueueReview(queue: string, item: JsonValue): Promise<string>;
  /** Every item of a queue. */
  listReviews(queue: string): Promise<JsonValue[]>;
  saveAudit(id: string, summary: JsonValue): Promise<string>;
}

export function createSessionRepository(store: Store, generateId: IdGenerator): SessionRepository {
  return {
    async load(id) {
      const entry = await store.getEntry(sessionKey(id));
      if (entry === undefined) return undefined;
      // Written only by save() below; the flow snapshot inside is checked again by flow.restore.
      return { record: entry.value as unknown as SessionRecord, version: entry.version };
    },
    async save(record, version) {
      const result = await store.compareAndSet(
        sessionKey(record.session_id),
        version,
        record as unknown as JsonValue, // plain JSON by construction (FlowSnapshot is JSON)
      );
      if (!result.ok) throw new SessionConflictError(record.session_id);
      return result.version;
    },
    async enqueueReview(queue, item) {
      const key = `${reviewPrefix(queue)}${generateId()}`;
      await store.set(key, item);
      return key;
    },
    async listReviews(queue) {
      const items: JsonValue[] = [];
      for await (const entry of store.list(reviewPrefix(queue))) items.push(entry.value);
      return items.sort((a, b) =>
        String((a as { at?: unknown }).at).localeCompare(String((b as { at?: unknown }).at)),
      );
    },
    async saveAudit(id, summary) {
      await store.set(auditKey(id), summary);
      return auditKey(id);
    },
  };
}
