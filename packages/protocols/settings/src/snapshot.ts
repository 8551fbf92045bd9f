import { type JsonValue, type ValidationIssue, validateAsync } from '@parley/core';
import type { SettingKeyOf, SettingsRegistry, SettingValueOf, SettingValuesOf } from './registry-types.js';
import { SettingsError } from './errors.js';
import { deepFreeze } from './internal/freeze.js';

/**
 * Where a snapshot's value came from: the campaign layer, the global layer, or the definition's default.
 *
 * @example
 * ```ts
 * import type { SettingSource } from '@parley/settings';
 *
 * const source: SettingSource = 'campaign';
 * ```
 */
export type SettingSource = 'campaign' | 'global' | 'default';

/**
 * One value of a snapshot with its source; `suppressedBy` names the setting whose relation forced
 * it to `false`.
 *
 * @example
 * ```ts
 * import type { SettingEntry } from '@parley/settings';
 *
 * const entry: SettingEntry<boolean> = { value: false, source: 'campaign', suppressedBy: 'context.full_context_enabled' };
 * ```
 */
export interface SettingEntry<TValue = JsonValue> {
  readonly value: TValue;
  readonly source: SettingSource;
  readonly suppressedBy?: string;
}

/**
 * The versions of the two layers a snapshot read — each layer's revision, one more with every
 * committed write (`0` for a layer never written) — so a turn log can record exactly which
 * settings a turn saw.
 *
 * @example
 * ```ts
 * import type { SettingsVersion } from '@parley/settings';
 *
 * const version: SettingsVersion = { global: 3, campaign: 7 };
 * ```
 */
export interface SettingsVersion {
  readonly global: number;
  readonly campaign: number;
}

/**
 * The plain-JSON form of a snapshot, for turn logs and transports.
 *
 * @example
 * ```ts
 * import type { SettingsSnapshotJson } from '@parley/settings';
 *
 * const json: SettingsSnapshotJson = {
 *   campaignId: 'c1',
 *   version: { global: 0, campaign: 2 },
 *   takenAt: 1_700_000_000_000,
 *   entries: { 'context.compress_enabled': { value: true, source: 'default' } },
 * };
 * ```
 */
export interface SettingsSnapshotJson {
  /** `null` for a snapshot of the global layer. */
  readonly campaignId: string | null;
  readonly version: SettingsVersion;
  readonly takenAt: number;
  readonly entries: Readonly<Record<string, SettingEntry>>;
}

/**
 * The immutable, typed settings one turn sees. Take a fresh one per turn with `snapshot()`; later
 * writes never change a snapshot already taken.
 *
 * @example
 * ```ts
 * import { createSettings, defineSetting, defineSettings, type SettingsSnapshot } from '@parley/settings';
 * import { z } from 'zod';
 *
 * const registry = defineSettings(
 *   [
 *     defineSetting({ key: 'context.full_context_enabled', schema: z.boolean(), default: false }),
 *     defineSetting({ key: 'context.compress_enabled', schema: z.boolean(), default: true }),
 *   ],
 *   { relations: [{ kind: 'precedence', winner: 'context.full_context_enabled', over: 'context.compress_enabled' }] },
 * );
 * const settings = createSettings(registry);
 * const snap: SettingsSnapshot<typeof registry> = await settings.snapshot('c1');
 * const compress: boolean = snap.get('context.compress_enabled');
 * console.log(compress, snap.entry('context.compress_enabled').source); // true 'default'
 * ```
 */
export interface SettingsSnapshot<TRegistry extends SettingsRegistry = SettingsRegistry> {
  /** `null` for a snapshot of the global layer. */
  readonly campaignId: string | null;
  readonly version: SettingsVersion;
  /** When it was taken, in epoch ms from the service's clock. */
  readonly takenAt: number;
  /** Every effective value, keyed by setting key (frozen). */
  readonly values: SettingValuesOf<TRegistry>;
  /**
   * The effective value of `key`.
   * @throws SettingsError `unknown_key` when `key` is not in the registry.
   */
  get<K extends SettingKeyOf<TRegistry>>(key: K): SettingValueOf<TRegistry, K>;
  /**
   * The value of `key` with its source.
   * @throws SettingsError `unknown_key` when `key` is not in the registry.
   */
  entry<K extends SettingKeyOf<TRegistry>>(key: K): SettingEntry<SettingValueOf<TRegistry, K>>;
  /** The snapshot as plain JSON, for a turn log. */
  toJSON(): SettingsSnapshotJson;
}

/** @internal One stored layer: its values (JSON, possibly stale) and its store version. */
export interface Layer {
  readonly values: Readonly<Record<string, JsonValue>>;
  readonly version: number;
}

/** @internal A stored value that no longer passes its schema and was ignored. */
export interface IgnoredValue {
  readonly key: string;
  readonly source: 'campaign' | 'global';
  readonly issues: readonly ValidationIssue[];
}

/** @internal Builds the snapshot of a campaign (or of the global layer) from the stored layers. */
export async function buildSnapshot<TRegistry extends SettingsRegistry>(
  registry: TRegistry,
  campaignId: string | null,
  global: Layer,
  campaign: Layer | undefined,
  takenAt: number,
): Promise<{ snapshot: SettingsSnapshot<TRegistry>; ignored: IgnoredValue[] }> {
  const entries: Record<string, SettingEntry> = Object.create(null);
  const ignored: IgnoredValue[] = [];
  for (const key of registry.keys) {
    const definition = registry.definitions[key] as (typeof registry.definitions)[string]; // key from registry.keys
    entries[key] = { value: definition.default as JsonValue, source: 'default' };
    const layers: [SettingSource & ('campaign' | 'global'), Layer | undefined][] = [
      ['campaign', definition.scope === 'campaign' ? campaign : undefined],
      ['global', global],
    ];
    for (const [source, layer] of layers) {
      if (layer === undefined || !Object.hasOwn(layer.values, key)) continue;
      const checked = await validateAsync(definition.schema, layer.values[key]);
      if (checked.ok) {
        entries[key] = { value: checked.value as JsonValue, source }; // re-validated stored JSON
        break;
      }
      ignored.push({ key, source, issues: checked.issues });
    }
  }
  applyRelations(registry, entries);
  const values: Record<string, JsonValue> = Object.create(null);
  for (const key of registry.keys) values[key] = (entries[key] as SettingEntry).value;
  deepFreeze(entries);
  const json: SettingsSnapshotJson = deepFreeze({
    campaignId,
    version: { global: global.version, campaign: campaign?.version ?? 0 },
    takenAt,
    entries,
  });
  const entryOf = (key: string): SettingEntry => {
    if (!registry.has(key)) {
      throw new SettingsError('unknown_key', `Unknown setting "${key}"`, { details: { key } });
    }
    return entries[key] as SettingEntry;
  };
  const snapshot = Object.freeze({
    campaignId,
    version: json.version,
    takenAt,
    values: deepFreeze(values),
    get: (key: string) => entryOf(key).value,
    entry: entryOf,
    toJSON: () => json,
  });
  // Its methods return the values checked against each key's schema above.
  return { snapshot: snapshot as unknown as SettingsSnapshot<TRegistry>, ignored };
}

const RANK: Readonly<Record<SettingSource, number>> = { campaign: 2, global: 1, default: 0 };

function applyRelations(registry: SettingsRegistry, entries: Record<string, SettingEntry>): void {
  const on = (key: string): boolean => entries[key]?.value === true;
  const suppress = (key: string, by: string): void => {
    entries[key] = { value: false, source: (entries[key] as SettingEntry).source, suppressedBy: by };
  };
  for (const relation of registry.relations) {
    if (relation.kind === 'precedence') {
      if (on(relation.winner) && on(relation.over)) suppress(relation.over, relation.winner);
      continue;
    }
    const active = relation.keys.filter(on);
    // The most specific scope wins; among equals, the key listed first (sort is stable).
    const [keep, ...rest] = active.sort(
      (a, b) => RANK[(entries[b] as SettingEntry).source] - RANK[(entries[a] as SettingEntry).source],
    );
    for (const key of rest) suppress(key, keep as string);
  }
}
