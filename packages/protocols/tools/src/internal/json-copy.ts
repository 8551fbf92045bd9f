import { DEFAULT_JSON_LIMITS, type JsonValue, parseJson, stringifyJson } from '@parley/core';
import { NUMBER_BOUND } from './json-bytes.js';

// A copy of a value as `parseJson(stringifyJson(value))` gives it, made without writing the text
// and reading it back: one walk copies what is plainly JSON and within parseJson's default limits
// by an upper bound; anything else (a value either may refuse, or one near a limit) takes the
// round trip itself, so what is refused, and how, stays exactly the round trip's.

const { maxBytes, maxDepth, maxNodes, forbiddenKeys } = DEFAULT_JSON_LIMITS;
const forbidden: readonly string[] = forbiddenKeys;

/** What the walk answers for a value it leaves to the round trip. */
const ROUND_TRIP: unique symbol = Symbol('round trip');

/** What the walk has counted: values, and an upper bound of the text's UTF-8 bytes. */
interface Walk {
  nodes: number;
  bytes: number;
  readonly freeze: boolean;
}

/**
 * `parseJson(stringifyJson(value))` (frozen all through when `freeze`), with its refusals: the
 * CoreError of `stringifyJson` for what is not JSON, and of `parseJson` past its default limits.
 */
export function jsonCopy(value: unknown, freeze: boolean): JsonValue {
  // With an enumerable key on Object.prototype, `for…in` (here, and in parseJson's checks) sees it
  // on every object: the round trip decides.
  for (const _ in NO_KEYS) return roundTrip(value, freeze);
  const walk: Walk = { nodes: 0, bytes: 0, freeze };
  let copy: JsonValue | typeof ROUND_TRIP;
  try {
    copy = copyOf(value, 1, walk);
  } catch {
    copy = ROUND_TRIP; // a getter that throws: the round trip throws what it throws
  }
  if (copy !== ROUND_TRIP && walk.nodes <= maxNodes && walk.bytes <= maxBytes) return copy;
  return roundTrip(value, freeze);
}

const NO_KEYS = {};

function roundTrip(value: unknown, freeze: boolean): JsonValue {
  const parsed = parseJson(stringifyJson(value));
  return freeze ? deepFreeze(parsed) : parsed;
}

/**
 * The copy of a value, counting it; `ROUND_TRIP` for what the walk does not decide: not JSON, a
 * forbidden key, an object with `toJSON`, nesting past `maxDepth`, or (for a
 * large value) past the limits before it ends.
 */
function copyOf(value: unknown, depth: number, walk: Walk): JsonValue | typeof ROUND_TRIP {
  walk.nodes++;
  switch (typeof value) {
    case 'string':
      walk.bytes += value.length * 6 + 2; // every character as its longest escape, and the quotes
      return value;
    case 'boolean':
      walk.bytes += 5;
      return value;
    case 'number':
      if (!Number.isFinite(value)) return ROUND_TRIP;
      walk.bytes += NUMBER_BOUND;
      return value + 0; // -0 is written 0
    case 'object':
      if (value === null) {
        walk.bytes += 4;
        return null;
      }
      if (depth > maxDepth || walk.nodes > maxNodes || walk.bytes > maxBytes) return ROUND_TRIP;
      // a `toJSON` of its own (enumerable or not) or inherited, which JSON.stringify would call
      if ((value as { toJSON?: unknown }).toJSON !== undefined) return ROUND_TRIP;
      return Array.isArray(value) ? arrayCopy(value, depth, walk) : objectCopy(value, depth, walk);
    default:
      return ROUND_TRIP;
  }
}

function arrayCopy(value: readonly unknown[], depth: number, walk: Walk): JsonValue | typeof ROUND_TRIP {
  if (value.length > maxNodes) return ROUND_TRIP;
  const copy: JsonValue[] = [];
  walk.bytes += 2 + value.length; // the brackets and the commas
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (item === undefined) return ROUND_TRIP; // stringifyJson refuses it, as it refuses a hole
    const itemCopy = copyOf(item, depth + 1, walk);
    if (itemCopy === ROUND_TRIP || walk.nodes > maxNodes) return ROUND_TRIP;
    copy.push(itemCopy);
  }
  return walk.freeze ? Object.freeze(copy) : copy;
}

function objectCopy(value: object, depth: number, walk: Walk): JsonValue | typeof ROUND_TRIP {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return ROUND_TRIP; // Date, Map, a class
  const record = value as Readonly<Record<string, unknown>>;
  const copy: Record<string, JsonValue> = {};
  walk.bytes += 2; // the braces
  for (const key in record) {
    if (forbidden.includes(key)) return ROUND_TRIP; // parseJson refuses it
    const item = record[key];
    if (item === undefined) continue; // left out, as JSON does
    const itemCopy = copyOf(item, depth + 1, walk);
    if (itemCopy === ROUND_TRIP) return ROUND_TRIP;
    walk.bytes += key.length * 6 + 4; // the key as text, its colon and a comma
    copy[key] = itemCopy;
  }
  return walk.freeze ? Object.freeze(copy) : copy;
}

/** Freezes a JSON value all through. */
function deepFreeze(value: JsonValue): JsonValue {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
