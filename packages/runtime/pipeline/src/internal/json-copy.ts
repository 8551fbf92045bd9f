// A value as its JSON text would read back, copied by a walk when it holds plain values only.
import type { JsonValue } from '@parley/core';

/**
 * @internal What `JSON.parse(JSON.stringify(value))` gives: a walk's copy when `value` holds plain
 * values only ({@link copied}), else the text round trip itself (which throws on a cycle or a BigInt).
 */
export function jsonCopy(value: unknown): JsonValue {
  return copied(value, 0) ?? (JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** How deep {@link copied} walks before it leaves the value to the JSON text round trip. */
const MAX_DEPTH = 32;

/**
 * What `JSON.parse(JSON.stringify(value))` gives, without the text, when `value` is made of plain
 * values only: strings, booleans, finite numbers, null, arrays and plain objects (`undefined` fields
 * left out). `undefined` for anything else, which the text round trip then decides (or refuses).
 */
function copied(value: unknown, depth: number): JsonValue | undefined {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : undefined; // -0 reads back 0
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = copied(value[i], depth + 1);
      if (item === undefined) return undefined;
      out.push(item);
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const source = value as Record<string, unknown>;
  if (typeof source['toJSON'] === 'function') return undefined;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(source)) {
    const field = source[key];
    if (field === undefined) continue;
    const item = key === '__proto__' ? undefined : copied(field, depth + 1);
    if (item === undefined) return undefined;
    out[key] = item;
  }
  return out;
}
