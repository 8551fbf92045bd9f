import type { SettingsSnapshot } from '@parley/settings';
import type { trpgSettings } from './settings.js';

/**
 * The conflict loop's K and switches as {@link trpgConflictPolicy} reads them: the shape of
 * `@parley/conflict`'s `ConflictPolicy`.
 */
export interface TrpgConflictPolicy {
  readonly maxRetries: number;
  readonly interceptOutput: boolean;
  readonly retryWithDebug: boolean;
}

/**
 * Reads the spec's section 7.2 keys (`conflict.max_retries`, `conflict.intercept_output`,
 * `conflict.retry_with_debug`) from a snapshot of {@link trpgSettings}, as the conflict loop's
 * policy.
 *
 * Use it as `@parley/conflict`'s `policy` option, reading a fresh snapshot each attempt, so a change
 * of the campaign's settings counts from the next attempt.
 */
export function trpgConflictPolicy(snapshot: SettingsSnapshot<typeof trpgSettings>): TrpgConflictPolicy {
  return {
    maxRetries: snapshot.get('conflict.max_retries'),
    interceptOutput: snapshot.get('conflict.intercept_output'),
    retryWithDebug: snapshot.get('conflict.retry_with_debug'),
  };
}

/**
 * How much history a TRPG context carries: `full` (every turn), `summary` (the summary and the last
 * turns) or `recent` (the last turns only).
 */
export type TrpgHistoryMode = 'full' | 'summary' | 'recent';

/**
 * The history mode of a snapshot of {@link trpgSettings}: full context wins over compression (the
 * registry's precedence relation), compression gives `summary`, neither gives `recent`.
 */
export function trpgHistoryMode(snapshot: SettingsSnapshot<typeof trpgSettings>): TrpgHistoryMode {
  if (snapshot.get('context.full_context_enabled')) return 'full';
  return snapshot.get('context.compress_enabled') ? 'summary' : 'recent';
}
