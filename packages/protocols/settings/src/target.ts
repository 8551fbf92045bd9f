/**
 * The target that names the global layer in `snapshot`, `set`, `update`, `safeSet` and `reset`
 * (any other target is a campaign id).
 *
 * @example
 * ```ts
 * import { createSettings, GLOBAL, trpgSettings } from '@parley/settings';
 *
 * const settings = createSettings(trpgSettings);
 * await settings.set(GLOBAL, 'rules.hp_zero_ends_game', true);
 * console.log((await settings.snapshot('c1')).entry('rules.hp_zero_ends_game').source); // 'global'
 * ```
 */
export const GLOBAL: unique symbol = Symbol.for('@parley/settings.global');

/**
 * What a read or write applies to: a campaign id, or {@link GLOBAL}.
 *
 * @example
 * ```ts
 * import { GLOBAL, type SettingsTarget } from '@parley/settings';
 *
 * const targets: SettingsTarget[] = ['campaign-42', GLOBAL];
 * ```
 */
export type SettingsTarget = string | typeof GLOBAL;
