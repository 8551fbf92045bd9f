import { type JsonValue, validateAsync } from '@parley/core';
import { SettingsError } from '../errors.js';
import type { SettingsRegistry } from '../registry-types.js';
import type { SettingsRefusal } from '../results.js';
import type { LayerOutcome } from './layer-record.js';
import { toJson } from './layers.js';

/** Marks a key to remove from a layer. */
export const RESET: unique symbol = Symbol('reset');

/** One change a write asks for: a key and its new value, or {@link RESET}. */
export type Change = readonly [key: string, value: unknown];

/**
 * Checks the changes of one write before anything is read: each key is known (a trusted call
 * throws for an unknown one), settable at the target's scope and valid by its schema as JSON.
 * Returns the layer's next values (`undefined` removes a key), or the first refusal.
 */
export async function checkChanges(
  registry: SettingsRegistry,
  campaignId: string | null,
  changes: readonly Change[],
  trusted: boolean,
): Promise<Map<string, JsonValue | undefined> | SettingsRefusal> {
  const next = new Map<string, JsonValue | undefined>();
  for (const [key, value] of changes) {
    if (!registry.has(key)) {
      if (trusted) throw new SettingsError('unknown_key', `Unknown setting "${key}"`, { details: { key } });
      return { ok: false, code: 'unknown_key', message: `Unknown setting "${key}"`, key };
    }
    const definition = registry.definitions[key] as SettingsRegistry['definitions'][string]; // has(key) checked
    if (campaignId !== null && definition.scope === 'global') {
      const message = `The setting "${key}" is global; a campaign cannot set it`;
      return { ok: false, code: 'scope_mismatch', message, key, scope: 'global' };
    }
    if (value === RESET) {
      next.set(key, undefined);
      continue;
    }
    const checked = await validateAsync(definition.schema, value);
    const json = checked.ok ? toJson(checked.value) : undefined;
    if (json === undefined) {
      const issues = checked.ok ? [{ path: [], pathText: '', message: 'Not JSON' }] : checked.issues;
      const message = `The value of "${key}" is refused: ${issues.map((issue) => issue.message).join('; ')}`;
      return { ok: false, code: 'invalid_value', message, key, issues };
    }
    next.set(key, json);
  }
  return next;
}

/** The refusal a write's outcome amounts to (a version or a relation it broke), or `undefined` when it landed. */
export function outcomeRefusal(
  outcome: LayerOutcome,
  expectedVersion: number | undefined,
): SettingsRefusal | undefined {
  if (outcome.kind === 'version_mismatch') {
    const expected = expectedVersion as number; // checked by the step
    const message = `The settings are at version ${outcome.version}, not ${expected}`;
    return {
      ok: false,
      code: 'version_mismatch',
      message,
      expectedVersion: expected,
      version: outcome.version,
    };
  }
  if (outcome.kind === 'mutually_exclusive') {
    return {
      ok: false,
      code: 'mutually_exclusive',
      message: `"${outcome.key}" cannot be on while "${outcome.conflictsWith}" is on`,
      key: outcome.key,
      conflictsWith: outcome.conflictsWith,
    };
  }
  return undefined;
}
