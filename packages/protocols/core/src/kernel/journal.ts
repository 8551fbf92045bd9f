// A journal of settled keys, kept inside the record that commits each result (pure).
import type { JsonValue } from '../json.js';

/**
 * One settled key: the key, a digest of the content it was settled for, its result and when.
 *
 * @example
 * ```ts
 * import type { SettledEntry } from '@parley/core';
 *
 * const entry: SettledEntry = { key: 'msg_1', digest: '{"dmg":7}', result: { hp: 93 }, at: 1_700_000_000_000 };
 * ```
 */
export interface SettledEntry {
  readonly key: string;
  readonly digest: string;
  readonly result: JsonValue;
  readonly at: number;
}

/**
 * The settled keys a record carries, oldest first (plain JSON).
 *
 * @example
 * ```ts
 * import type { SettledJournal } from '@parley/core';
 *
 * const journal: SettledJournal = [];
 * ```
 */
export type SettledJournal = readonly SettledEntry[];

/**
 * The caps of a journal: at most `maxEntries` keys and `maxBytes` UTF-8 bytes of JSON.
 *
 * @example
 * ```ts
 * import type { JournalLimits } from '@parley/core';
 *
 * const limits: JournalLimits = { maxEntries: 64, maxBytes: 32 * 1024 };
 * ```
 */
export interface JournalLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/**
 * The default caps of a journal: 256 keys and 256 KiB.
 *
 * @example
 * ```ts
 * import { DEFAULT_JOURNAL_LIMITS } from '@parley/core';
 *
 * console.log(DEFAULT_JOURNAL_LIMITS.maxEntries); // 256
 * ```
 */
export const DEFAULT_JOURNAL_LIMITS: JournalLimits = { maxEntries: 256, maxBytes: 256 * 1024 };

/**
 * Finds a settled key in a journal.
 *
 * @example
 * ```ts
 * import { addSettled, findSettled } from '@parley/core';
 *
 * const added = addSettled([], { key: 'msg_1', digest: 'a', result: 93, at: 0 });
 * console.log(added.ok && findSettled(added.journal, 'msg_1')?.result); // 93
 * ```
 */
export function findSettled(journal: SettledJournal, key: string): SettledEntry | undefined {
  return journal.find((entry) => entry.key === key);
}

/**
 * Adds a settled key to a journal, dropping the oldest keys past the caps. An entry that alone is
 * over `maxBytes` is refused (`too_large`): the caller commits nothing rather than a result without
 * its key. A key already in the journal is kept as it is.
 *
 * Put the returned journal in the same record (the same compare-and-set) as the result it settles,
 * so a key is never forgotten however many writes fail in a row.
 *
 * @example
 * ```ts
 * import { addSettled } from '@parley/core';
 *
 * let journal = addSettled([], { key: 'a', digest: 'x', result: 1, at: 0 }, { maxEntries: 1, maxBytes: 1024 });
 * journal = journal.ok ? addSettled(journal.journal, { key: 'b', digest: 'y', result: 2, at: 1 }, { maxEntries: 1, maxBytes: 1024 }) : journal;
 * console.log(journal.ok && journal.journal.map((e) => e.key)); // [ 'b' ]
 * ```
 */
export function addSettled(
  journal: SettledJournal,
  entry: SettledEntry,
  limits: JournalLimits = DEFAULT_JOURNAL_LIMITS,
):
  | { readonly ok: true; readonly journal: SettledJournal }
  | { readonly ok: false; readonly code: 'too_large'; readonly message: string } {
  if (findSettled(journal, entry.key) !== undefined) return { ok: true, journal };
  const sizes = [...journal, entry].map((e) => new TextEncoder().encode(JSON.stringify(e)).length + 1);
  const own = sizes[sizes.length - 1] as number;
  if (own > limits.maxBytes) {
    return {
      ok: false,
      code: 'too_large',
      message: `settled key ${entry.key} is larger than ${limits.maxBytes} bytes`,
    };
  }
  let total = sizes.reduce((sum, size) => sum + size, 0);
  let from = Math.max(0, sizes.length - limits.maxEntries);
  for (let i = 0; i < from; i++) total -= sizes[i] as number;
  while (total > limits.maxBytes) total -= sizes[from++] as number;
  return { ok: true, journal: [...journal, entry].slice(from) };
}

/**
 * Checks stored data as a journal (for a codec's `decode`); `undefined` when it is not one.
 *
 * @example
 * ```ts
 * import { readJournal } from '@parley/core';
 *
 * console.log(readJournal([{ key: 'a', digest: 'x', result: null, at: 0 }])?.length, readJournal('no')); // 1 undefined
 * ```
 */
export function readJournal(value: unknown): SettledJournal | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = value.every(
    (e: unknown) =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as SettledEntry).key === 'string' &&
      typeof (e as SettledEntry).digest === 'string' &&
      Number.isFinite((e as SettledEntry).at) &&
      'result' in e,
  );
  return ok ? (value as SettledJournal) : undefined; // every entry checked above
}
