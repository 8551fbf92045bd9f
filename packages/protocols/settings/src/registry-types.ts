import type { InferInput, InferOutput } from '@parley/core';
import type { SettingDefinition, SettingRelation } from './define.js';

/**
 * A frozen set of setting definitions and relations, keyed by setting key. Made by
 * {@link defineSettings}; its keys and value types are inferred.
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type SettingsRegistry } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry: SettingsRegistry = defineSettings([defineSetting({ key: 'ui.theme', schema: z.string(), default: 'dark' })]);
 * console.log(registry.keys); // ['ui.theme']
 * ```
 */
export interface SettingsRegistry<TMap extends DefinitionMap = DefinitionMap> {
  readonly keys: readonly (keyof TMap & string)[];
  readonly definitions: Readonly<TMap>;
  readonly relations: readonly SettingRelation<keyof TMap & string>[];
  /** Tells whether `key` is a key of this registry (own keys only: `'constructor'` is not). */
  has(key: string): key is keyof TMap & string;
}

/**
 * The keys of a registry, as a string-literal union.
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type SettingKeyOf } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const key: SettingKeyOf<typeof registry> = 'review.required';
 * ```
 */
export type SettingKeyOf<TRegistry> =
  TRegistry extends SettingsRegistry<infer TMap> ? keyof TMap & string : never;

/**
 * The value type of one key of a registry (the schema's output).
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type SettingValueOf } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const max: SettingValueOf<typeof registry, 'history.max_turns'> = 3;
 * ```
 */
export type SettingValueOf<TRegistry, TKey extends string> =
  TRegistry extends SettingsRegistry<infer TMap>
    ? TKey extends keyof TMap
      ? InferOutput<TMap[TKey]['schema']>
      : never
    : never;

/**
 * The type a write of one key accepts (the schema's input).
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type SettingInputOf } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const tone: SettingInputOf<typeof registry, 'reply.tone'> = 'formal';
 * ```
 */
export type SettingInputOf<TRegistry, TKey extends string> =
  TRegistry extends SettingsRegistry<infer TMap>
    ? TKey extends keyof TMap
      ? InferInput<TMap[TKey]['schema']>
      : never
    : never;

/**
 * Every value of a registry as one object type: key → value.
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type SettingValuesOf } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * type Values = SettingValuesOf<typeof registry>;
 * const required: Values['review.required'] = true;
 * ```
 */
export type SettingValuesOf<TRegistry> = {
  readonly [K in SettingKeyOf<TRegistry>]: SettingValueOf<TRegistry, K>;
};

/**
 * A map of setting key → definition: the shape a registry is parameterised by.
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type DefinitionMap } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const definitions: DefinitionMap = registry.definitions;
 * ```
 */
export type DefinitionMap = Record<string, SettingDefinition>;

/**
 * The definition map a tuple of definitions describes, keyed by their literal keys.
 *
 * @example
 * ```ts
 * import { defineSetting, type DefinitionMapOf } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const theme = defineSetting({ key: 'ui.theme', schema: z.string(), default: 'dark' });
 * type Map = DefinitionMapOf<[typeof theme]>;
 * const definition: Map['ui.theme'] = theme;
 * ```
 */
export type DefinitionMapOf<TDefs extends readonly SettingDefinition[]> = {
  [D in TDefs[number] as D['key']]: D;
};

/**
 * The keys of a definition map whose values are booleans: the keys a relation may name.
 *
 * @example
 * ```ts
 * import { defineSetting, defineSettings, type BooleanKeyOf } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings([
 *   defineSetting({ key: 'reply.tone', schema: z.enum(['plain', 'formal']), default: 'plain' }),
 *   defineSetting({ key: 'history.max_turns', schema: z.number().int(), default: 20, scope: 'global' }),
 *   defineSetting({ key: 'review.required', schema: z.boolean(), default: false }),
 * ]);
 * const key: BooleanKeyOf<typeof registry.definitions> = 'review.required';
 * ```
 */
export type BooleanKeyOf<TMap extends DefinitionMap> = {
  [K in keyof TMap]: InferOutput<TMap[K]['schema']> extends boolean ? K : never;
}[keyof TMap] &
  string;
