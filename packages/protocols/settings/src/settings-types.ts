import type { Clock, Emitter, Store } from '@parley/core';
import type { SettingInputOf, SettingKeyOf, SettingsRegistry } from './registry-types.js';
import type { SettingsEvents, SettingsResult, SettingsWriteOptions } from './results.js';
import type { SettingsSnapshot } from './snapshot.js';
import type { SettingsTarget } from './target.js';

/**
 * Options for {@link createSettings}.
 *
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import type { SettingsOptions } from '@parley/settings';
 *
 * const clock = createManualClock();
 * const options: SettingsOptions = { store: createMemoryStore({ clock }), clock, keyPrefix: 'app:settings:' };
 * ```
 */
export interface SettingsOptions {
  /** Where the layers live; a new in-memory store by default (nothing survives the process). */
  readonly store?: Store;
  /** Stamps snapshots and events; the system clock by default. */
  readonly clock?: Clock;
  /** Prefix of the store keys (`<prefix>global`, `<prefix>campaign:<id>`); `settings:` by default. */
  readonly keyPrefix?: string;
  /** How many times a write is retried when another writer commits first; 8 by default. */
  readonly maxWriteAttempts?: number;
  /** Called when an event listener throws (see `createEmitter`). */
  readonly onListenerError?: (error: unknown, event: string) => void;
}

/**
 * The settings service of one registry: layered values in a `Store`, typed snapshots, validated writes.
 *
 * @example
 * ```ts
 * import { createSettings, defineSetting, defineSettings, type Settings } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const settings: Settings<typeof registry> = createSettings(registry);
 * console.log(settings.registry.keys.length); // 3
 * ```
 */
export interface Settings<TRegistry extends SettingsRegistry = SettingsRegistry> {
  readonly registry: TRegistry;
  /**
   * Reads the current values of a campaign (or of {@link GLOBAL}) into an immutable snapshot.
   * Take one per turn.
   * @throws SettingsError `invalid_argument` for an empty or non-string campaign id.
   */
  snapshot(target: SettingsTarget): Promise<SettingsSnapshot<TRegistry>>;
  /**
   * Sets one key of the target layer. Bad values are refused as data.
   * @throws SettingsError `unknown_key` for a key not in the registry; `invalid_argument` for a bad
   * target; `write_conflict` when other writers won `maxWriteAttempts` times in a row.
   */
  set<K extends SettingKeyOf<TRegistry>>(
    target: SettingsTarget,
    key: K,
    value: SettingInputOf<TRegistry, K>,
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /**
   * Sets several keys of the target layer atomically (all or none).
   * @throws SettingsError as {@link Settings.set}.
   */
  update(
    target: SettingsTarget,
    values: { readonly [K in SettingKeyOf<TRegistry>]?: SettingInputOf<TRegistry, K> },
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /**
   * Sets one key from untrusted input (a user, the model): an unknown key is refused as data too.
   * @throws SettingsError `invalid_argument` for a bad target; `write_conflict` as {@link Settings.set}.
   */
  safeSet(
    target: SettingsTarget,
    key: string,
    value: unknown,
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /**
   * Removes the target layer's values of `keys` (all of them when omitted), so the next layer or the default applies.
   * @throws SettingsError as {@link Settings.set}.
   */
  reset(
    target: SettingsTarget,
    keys?: readonly SettingKeyOf<TRegistry>[],
    options?: SettingsWriteOptions,
  ): Promise<SettingsResult<TRegistry>>;
  /** Adds an event listener; returns a function that removes it. */
  on: Emitter<SettingsEvents>['on'];
}
