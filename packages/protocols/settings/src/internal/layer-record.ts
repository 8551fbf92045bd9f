// A settings layer as a durable-kernel record, the pure step of a write, and the reading of layers
// stored by versions before the kernel (migrated by the next write).
import type { JsonValue, KernelStep, RecordCodec } from '@parley/core';
import type { SettingsRegistry } from '../registry-types.js';
import type { SettingChange } from '../results.js';
import { exclusiveClash, sameJson } from './layers.js';

/** What a layer's kernel record holds: its revision (its version) and its values. */
export interface StoredLayer {
  readonly rev: number;
  readonly values: Readonly<Record<string, JsonValue>>;
}

const isObject = (value: unknown): value is Record<string, JsonValue> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The kernel codec of a settings layer (kind `parley.settings.layer`, format 1). */
export const LAYER_RECORD: RecordCodec<StoredLayer> = {
  kind: 'parley.settings.layer',
  version: 1,
  decode(data) {
    if (!isObject(data) || !isObject(data['values'])) return undefined;
    const rev = data['rev'];
    return Number.isSafeInteger(rev) && (rev as number) > 0
      ? { rev: rev as number, values: data['values'] }
      : undefined;
  },
  encode: (layer) => ({ rev: layer.rev, values: layer.values }),
  // A layer as @parley/settings stored it before the kernel: `{ values }`, its store version as its
  // revision; the next write stores it as a kernel record.
  legacy: (stored, storeVersion) =>
    isObject(stored) && isObject(stored['values'])
      ? { rev: storeVersion, values: stored['values'] }
      : undefined,
};

/** What a write asks of a layer: the changes, the version it must be at, the global values under it. */
export interface LayerWrite {
  readonly next: ReadonlyMap<string, JsonValue | undefined>;
  readonly expectedVersion: number | undefined;
  /** The global layer's values under a campaign layer; `undefined` when the global layer is written. */
  readonly global: Readonly<Record<string, JsonValue>> | undefined;
}

/** What a write decided: refused (nothing written), nothing to change, or changed. */
export type LayerOutcome =
  | { readonly kind: 'version_mismatch'; readonly version: number }
  | { readonly kind: 'mutually_exclusive'; readonly key: string; readonly conflictsWith: string }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'changed'; readonly changes: readonly SettingChange[] };

/** The pure step of a write on the committed layer: version check, changes, relations (re-checked). */
export function writeStep(registry: SettingsRegistry): KernelStep<StoredLayer, LayerWrite, LayerOutcome> {
  return (current, { next, expectedVersion, global }) => {
    const version = current?.rev ?? 0;
    if (expectedVersion !== undefined && expectedVersion !== version) {
      return { value: current, effects: [{ kind: 'version_mismatch', version }] };
    }
    const values: Record<string, JsonValue> = { ...current?.values };
    const changes: SettingChange[] = [];
    for (const [key, value] of next) {
      const previous = Object.hasOwn(values, key) ? values[key] : undefined;
      if (value === undefined) delete values[key];
      else values[key] = value;
      if (!sameJson(previous, value)) changes.push({ key, previous, value });
    }
    const clash =
      global === undefined
        ? exclusiveClash(registry, next, undefined, values)
        : exclusiveClash(registry, next, values, global);
    if (clash !== undefined) return { value: current, effects: [{ kind: 'mutually_exclusive', ...clash }] };
    if (changes.length === 0) return { value: current, effects: [{ kind: 'unchanged' }] };
    return { value: { rev: version + 1, values }, effects: [{ kind: 'changed', changes }] };
  };
}
