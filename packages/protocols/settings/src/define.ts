import {
  type InferOutput,
  isStandardSchema,
  type JsonValue,
  type StandardSchemaV1,
  stringifyJson,
} from '@parley/core';
import { SettingsError } from './errors.js';
import { deepFreeze } from './internal/freeze.js';

/**
 * The scopes a setting can have: `campaign` settings may be overridden per campaign (and given a
 * host-wide value at the global layer); `global` settings are set only at the global layer.
 *
 * @example
 * ```ts
 * import { SETTING_SCOPES } from '@parley/settings';
 *
 * console.log(SETTING_SCOPES); // ['campaign', 'global']
 * ```
 */
export const SETTING_SCOPES = ['campaign', 'global'] as const;

/**
 * A scope of a setting: see {@link SETTING_SCOPES}.
 *
 * @example
 * ```ts
 * import type { SettingScope } from '@parley/settings';
 *
 * const scope: SettingScope = 'global';
 * ```
 */
export type SettingScope = (typeof SETTING_SCOPES)[number];

/**
 * The effect tags the reference spec names: what part of a turn a setting changes. Hosts may add
 * their own tags; these are the known ones.
 *
 * @example
 * ```ts
 * import { SETTING_EFFECT_TAGS } from '@parley/settings';
 *
 * console.log(SETTING_EFFECT_TAGS.includes('context')); // true
 * ```
 */
export const SETTING_EFFECT_TAGS = ['context', 'rules', 'routing', 'ui', 'storage'] as const;

/**
 * An effect tag: one of {@link SETTING_EFFECT_TAGS} or a host's own string.
 *
 * @example
 * ```ts
 * import type { SettingEffectTag } from '@parley/settings';
 *
 * const tags: SettingEffectTag[] = ['context', 'billing'];
 * ```
 */
export type SettingEffectTag = (typeof SETTING_EFFECT_TAGS)[number] | (string & Record<never, never>);

/**
 * How a settings UI should present a setting. Plain data; Parley never renders it.
 *
 * @example
 * ```ts
 * import type { SettingUiHint } from '@parley/settings';
 *
 * const hint: SettingUiHint = { control: 'select', label: 'Dialog type', options: ['scene', 'action'] };
 * ```
 */
export interface SettingUiHint {
  readonly control?: 'toggle' | 'number' | 'select' | 'text' | 'json';
  readonly label?: string;
  readonly help?: string;
  /** The choices of a `select`. */
  readonly options?: readonly string[];
}

/**
 * One setting: its key, Standard Schema, default, scope, effect tags and UI hint. Made by
 * {@link defineSetting}; frozen.
 *
 * @example
 * ```ts
 * import { defineSetting, type SettingDefinition } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const compress: SettingDefinition<'context.compress_enabled', z.ZodBoolean> = defineSetting({
 *   key: 'context.compress_enabled',
 *   schema: z.boolean(),
 *   default: true,
 * });
 * ```
 */
export interface SettingDefinition<
  TKey extends string = string,
  TSchema extends StandardSchemaV1 = StandardSchemaV1,
> {
  readonly key: TKey;
  readonly schema: TSchema;
  /** The value used when neither the campaign nor the global layer sets one (deep-frozen JSON). */
  readonly default: InferOutput<TSchema>;
  readonly scope: SettingScope;
  readonly effects: readonly SettingEffectTag[];
  readonly ui: SettingUiHint;
  readonly description?: string | undefined;
}

/**
 * What {@link defineSetting} takes: a definition whose `scope` (default `campaign`), `effects`
 * (default none) and `ui` (default `{}`) may be omitted.
 *
 * @example
 * ```ts
 * import type { SettingInit } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const schema = z.enum(['scene', 'action']);
 * const init: SettingInit<'dialog.manual_type', typeof schema> = { key: 'dialog.manual_type', schema, default: 'scene' };
 * ```
 */
export interface SettingInit<TKey extends string, TSchema extends StandardSchemaV1> {
  readonly key: TKey;
  readonly schema: TSchema;
  readonly default: InferOutput<TSchema>;
  readonly scope?: SettingScope;
  readonly effects?: readonly SettingEffectTag[];
  readonly ui?: SettingUiHint;
  readonly description?: string;
}

/**
 * A relation between boolean settings, enforced by the settings service.
 * - `exclusive`: at most one of `keys` may be `true`; a write that would turn on a second one is
 *   refused (`mutually_exclusive`), and if layering still produces two (a global write after a
 *   campaign one), the snapshot keeps the value from the most specific scope and reads the others as `false`.
 * - `precedence`: when `winner` is `true`, `over` reads as `false` in snapshots (writes are not refused).
 *
 * @example
 * ```ts
 * import type { SettingRelation } from '@parley/settings';
 *
 * const relation: SettingRelation = { kind: 'precedence', winner: 'context.full_context_enabled', over: 'context.compress_enabled' };
 * ```
 */
export type SettingRelation<TKey extends string = string> =
  | { readonly kind: 'exclusive'; readonly keys: readonly TKey[] }
  | { readonly kind: 'precedence'; readonly winner: TKey; readonly over: TKey };

/**
 * Defines one setting: a pure, frozen definition fit to be a module constant.
 *
 * Use it for every setting a host exposes, then gather them with {@link defineSettings}. The key is
 * dotted identifiers (`context.compress_enabled`); the default is checked against the schema (when
 * the schema validates synchronously) and must be JSON.
 *
 * @throws SettingsError `invalid_definition` for a malformed key, a value that is not a Standard
 * Schema, an unknown scope, or a default that fails the schema or is not JSON.
 * @example
 * ```ts
 * import { defineSetting } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const compress = defineSetting({
 *   key: 'context.compress_enabled',
 *   schema: z.boolean(),
 *   default: true,
 *   effects: ['context'],
 *   ui: { control: 'toggle', label: 'Compress older turns' },
 * });
 * console.log(compress.scope); // 'campaign'
 * ```
 */
export function defineSetting<const TKey extends string, TSchema extends StandardSchemaV1>(
  init: SettingInit<TKey, TSchema>,
): SettingDefinition<TKey, TSchema> {
  const { key, schema } = init;
  const fail = (message: string, cause?: unknown): never => {
    throw new SettingsError('invalid_definition', `Setting "${String(key)}": ${message}`, {
      details: { key },
      cause,
    });
  };
  if (typeof key !== 'string' || !KEY.test(key))
    fail('the key must be dotted identifiers, like "context.compress_enabled"');
  if (!isStandardSchema(schema)) fail('the schema is not a Standard Schema');
  const scope = init.scope ?? 'campaign';
  if (!SETTING_SCOPES.includes(scope)) fail(`unknown scope "${String(scope)}"`);
  const checked = schema['~standard'].validate(init.default);
  if (!(checked instanceof Promise) && checked.issues !== undefined) {
    fail(`the default fails its schema: ${checked.issues.map((issue) => issue.message).join('; ')}`);
  }
  let json: JsonValue = null;
  try {
    json = JSON.parse(stringifyJson(init.default)) as JsonValue; // stringifyJson only emits JSON
  } catch (error) {
    fail('the default is not JSON', error);
  }
  return Object.freeze({
    key,
    schema,
    default: deepFreeze(json) as InferOutput<TSchema>, // the JSON copy of a value of that type
    scope,
    effects: Object.freeze([...(init.effects ?? [])]),
    ui: deepFreeze({ ...init.ui }),
    description: init.description,
  });
}

const KEY = /^[A-Za-z][\w-]*(\.[A-Za-z][\w-]*)*$/;
