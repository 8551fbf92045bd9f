// Snapshots a crash left unnamed: found once per instance, after the first log write it makes, and deleted.
import type { JsonValue, Store } from '@parley/core';
import type { LogRecord } from './log-record.js';

/** @internal Where snapshot records live under a prefix: checkpoints, and the present a rollback kept. */
const AREAS = ['checkpoint:', 'undo:'] as const;

/** @internal The sweep of one instance: `pending` until a pass has run to the end. */
export interface Sweep {
  readonly pending: () => boolean;
  /**
   * Deletes what `log`, just written at `rev`, does not name and can never name; a failing store
   * leaves it for the next write.
   */
  readonly run: (log: LogRecord, rev: number) => Promise<void>;
}

/**
 * @internal A snapshot is written before the log that names it and deleted after the log that drops
 * it, so a process that dies between the two writes leaves a record no log names, with no expiry.
 * Each snapshot carries the log's key and the `rev` it was written against (`basis`); the log's
 * write lands only on that `rev`, so once the log is past it, a snapshot the log does not name can
 * never be named and is deleted. The sweep runs once per instance (a restart is a new one), after
 * its first log write, so a snapshot the process left before it died is past. A snapshot of a write
 * in flight (its `basis` is the log's `rev`),
 * another log's, another kind of record, and a snapshot of a version that wrote no `basis` are kept.
 */
export function createSweep(store: Store, prefix: string, logKey: string): Sweep {
  let done = false;
  return {
    pending: () => !done,
    async run(log, rev) {
      if (done) return;
      const named = namedRefs(log);
      try {
        const orphans: string[] = [];
        for (const area of AREAS) {
          for await (const entry of store.list(`${prefix}${area}`)) {
            if (!named.has(entry.key) && isOrphan(entry.value, logKey, rev)) orphans.push(entry.key);
          }
        }
        for (const key of orphans) await store.delete(key);
        done = true;
      } catch {
        // a clean-up never fails the change it follows: the next write of this instance tries again
      }
    },
  };
}

/** Every snapshot key the log names: its checkpoints, and a pending rollback's present and hidden checkpoints. */
function namedRefs(log: LogRecord): Set<string> {
  const named = new Set(log.checkpoints.map((c) => c.ref));
  if (log.undo !== null) {
    named.add(log.undo.ref);
    for (const c of log.undo.checkpoints) named.add(c.ref);
  }
  return named;
}

function isOrphan(value: JsonValue, logKey: string, rev: number): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { kind, log, basis } = value as { readonly [key: string]: JsonValue };
  return kind === 'parley.checkpoint' && log === logKey && Number.isInteger(basis) && (basis as number) < rev;
}
