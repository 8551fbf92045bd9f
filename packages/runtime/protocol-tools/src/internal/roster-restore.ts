import type { Store } from '@parley/core';
import type { RosterRestored } from '../team-types.js';
import { type Held, readTeammate } from './roster-store.js';

/**
 * Reads the stored records of a lead's teammates into what the lead holds; a record that does not
 * read as version 1 is ignored and named. Without a store it finds nothing.
 */
export async function restoreRoster(
  store: Store | undefined,
  prefix: string,
  names: readonly string[],
  records: ReadonlyMap<string, Held>,
): Promise<RosterRestored> {
  const ignored: string[] = [];
  let restored = 0;
  if (store === undefined) return { restored, ignored };
  for (const name of names) {
    const value = await store.get(`${prefix}${name}`);
    if (value === undefined) continue;
    const stored = readTeammate(value);
    if (stored === undefined) {
      ignored.push(name);
      continue;
    }
    const record = records.get(name) as Held;
    record.status = stored.status;
    record.lateReplies = stored.lateReplies;
    restored++;
  }
  return { restored, ignored };
}
