import { type JsonValue, stringifyJson } from '@parley/core';
import type { SettingsRegistry } from '../registry-types.js';

export function toJson(value: unknown): JsonValue | undefined {
  try {
    return JSON.parse(stringifyJson(value)) as JsonValue; // stringifyJson only emits JSON
  } catch {
    return undefined;
  }
}

export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : stringifyJson(a) === stringifyJson(b);
}

/** The first exclusive relation a write would break: a key it turns on while another is on. */
export function exclusiveClash(
  registry: SettingsRegistry,
  next: ReadonlyMap<string, JsonValue | undefined>,
  campaign: Readonly<Record<string, JsonValue>> | undefined,
  global: Readonly<Record<string, JsonValue>>,
): { key: string; conflictsWith: string } | undefined {
  const on = (key: string): boolean => {
    const definition = registry.definitions[key] as SettingsRegistry['definitions'][string]; // relation keys are known
    if (campaign !== undefined && definition.scope === 'campaign' && Object.hasOwn(campaign, key)) {
      return campaign[key] === true;
    }
    return (Object.hasOwn(global, key) ? global[key] : definition.default) === true;
  };
  for (const relation of registry.relations) {
    if (relation.kind !== 'exclusive') continue;
    for (const key of relation.keys) {
      if (next.get(key) !== true) continue;
      const other = relation.keys.find((candidate) => candidate !== key && on(candidate));
      if (other !== undefined) return { key, conflictsWith: other };
    }
  }
  return undefined;
}
