/**
 * The target that names the global layer in `snapshot`, `set`, `update`, `safeSet` and `reset`
 * (any other target is a campaign id).
 *
 * @example
 * ```ts
 * import { createSettings, defineSetting, defineSettings, GLOBAL } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const settings = createSettings(registry);
 * await settings.set(GLOBAL, 'review.required', true);
 * console.log((await settings.snapshot('c1')).entry('review.required').source); // 'global'
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
