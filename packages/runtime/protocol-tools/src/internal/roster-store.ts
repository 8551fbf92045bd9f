import type { JsonValue, Store } from '@parley/core';
import type { TrackedRequest } from '@parley/correlate';
import type { TeammateStatus } from '../team-types.js';

/** What the lead keeps of one teammate in the Store: version 1 of the record. */
export interface StoredTeammate {
  readonly status: Exclude<TeammateStatus, 'shutdown_pending'>;
  readonly lateReplies: number;
}

/** What the lead holds of a teammate: `shutdown_pending` is never held, it is read from the correlator. */
export type Held = { -readonly [K in keyof StoredTeammate]: StoredTeammate[K] } & { last?: TrackedRequest };

const STATUSES: ReadonlySet<string> = new Set(['working', 'shut_down', 'unresponsive']);

/** The record as stored; `undefined` for anything else (corrupt, another version): never trusted. */
export function readTeammate(value: JsonValue | undefined): StoredTeammate | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { v, status, lateReplies } = value as Record<string, JsonValue>;
  if (v !== 1 || typeof status !== 'string' || !STATUSES.has(status)) return undefined;
  if (typeof lateReplies !== 'number' || !Number.isSafeInteger(lateReplies) || lateReplies < 0)
    return undefined;
  return { status: status as StoredTeammate['status'], lateReplies };
}

/**
 * Writes teammates' records in the order their changes happened, one chain per teammate (a later
 * write never lands before an earlier one); `idle` resolves when every write has landed or failed.
 */
export function createRosterWriter(
  store: Store | undefined,
  prefix: string,
  onError: (teammate: string, error: unknown) => void,
): { write(name: string, record: StoredTeammate): void; idle(): Promise<void> } {
  const chains = new Map<string, Promise<void>>();
  return {
    write(name, record) {
      if (store === undefined) return;
      const value: JsonValue = { v: 1, status: record.status, lateReplies: record.lateReplies };
      const next = (chains.get(name) ?? Promise.resolve())
        .then(() => store.set(`${prefix}${name}`, value))
        .then(
          () => undefined,
          (error: unknown) => {
            try {
              onError(name, error);
            } catch {
              // a listener that throws must not break the chain of later writes
            }
          },
        );
      chains.set(name, next);
      void next.then(() => {
        if (chains.get(name) === next) chains.delete(name);
      });
    },
    async idle() {
      while (chains.size > 0) await Promise.all(chains.values());
    },
  };
}
