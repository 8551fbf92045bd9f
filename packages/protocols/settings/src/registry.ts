import { SettingsError } from './errors.js';
import type { SettingDefinition, SettingRelation } from './define.js';
import { deepFreeze } from './internal/freeze.js';
import type { BooleanKeyOf, DefinitionMapOf, SettingsRegistry } from './registry-types.js';

// The registry of settings: built from single definitions (define.ts), typed by registry-types.ts.

/**
 * Gathers setting definitions and the relations between them into a frozen, typed registry.
 *
 * Use it once per host (a module constant is fine); pass the registry to `createSettings`. Keys and
 * value types are inferred, so a snapshot's `get('context.compress_enabled')` is typed `boolean`.
 * Relations may name only boolean settings.
 *
 * @throws SettingsError `duplicate_key` when two definitions share a key; `invalid_definition` when
 * an item is not a definition; `invalid_relation` when a relation names an unknown or non-boolean
 * setting, fewer than two distinct keys, or exclusive settings whose defaults are both `true`.
 * @example
 * ```ts
 * import { defineSetting, defineSettings } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings(
 *   [
 *     defineSetting({ key: 'context.full_context_enabled', schema: z.boolean(), default: false }),
 *     defineSetting({ key: 'context.compress_enabled', schema: z.boolean(), default: true }),
 *   ],
 *   { relations: [{ kind: 'exclusive', keys: ['context.full_context_enabled', 'context.compress_enabled'] }] },
 * );
 * console.log(registry.has('context.compress_enabled'), registry.has('context.other')); // true false
 * ```
 */
export function defineSettings<const TDefs extends readonly SettingDefinition[]>(
  settings: TDefs,
  options: { readonly relations?: readonly SettingRelation<BooleanKeyOf<DefinitionMapOf<TDefs>>>[] } = {},
): SettingsRegistry<DefinitionMapOf<TDefs>> {
  const definitions: Record<string, SettingDefinition> = Object.create(null);
  for (const definition of settings) {
    if (typeof definition !== 'object' || definition === null || typeof definition.key !== 'string') {
      throw new SettingsError('invalid_definition', 'Each setting must come from defineSetting()');
    }
    if (Object.hasOwn(definitions, definition.key)) {
      throw new SettingsError('duplicate_key', `Two settings share the key "${definition.key}"`, {
        details: { key: definition.key },
      });
    }
    definitions[definition.key] = definition;
  }
  const relations = (options.relations ?? []).map((relation) => checkRelation(relation, definitions));
  return Object.freeze({
    keys: Object.freeze(Object.keys(definitions)),
    definitions: Object.freeze(definitions),
    relations: Object.freeze(relations),
    has: (key: string) => Object.hasOwn(definitions, key),
  }) as SettingsRegistry<DefinitionMapOf<TDefs>>; // keys and definitions were built from TDefs
}

function checkRelation(
  relation: SettingRelation,
  definitions: Record<string, SettingDefinition>,
): SettingRelation {
  const keys = relation.kind === 'exclusive' ? [...relation.keys] : [relation.winner, relation.over];
  const fail = (message: string): never => {
    throw new SettingsError(
      'invalid_relation',
      `Relation ${relation.kind} (${keys.join(', ')}): ${message}`,
      {
        details: { relation },
      },
    );
  };
  if (relation.kind !== 'exclusive' && relation.kind !== 'precedence') fail('unknown kind');
  if (new Set(keys).size !== keys.length || keys.length < 2) fail('it needs at least two distinct keys');
  for (const key of keys) {
    const definition = Object.hasOwn(definitions, key) ? definitions[key] : undefined;
    if (definition === undefined) fail(`unknown key "${key}"`);
    else if (typeof definition.default !== 'boolean') fail(`"${key}" is not a boolean setting`);
  }
  if (relation.kind === 'exclusive' && keys.filter((key) => definitions[key]?.default === true).length > 1) {
    fail('more than one of its defaults is true');
  }
  return deepFreeze(relation.kind === 'exclusive' ? { kind: 'exclusive', keys } : { ...relation });
}
