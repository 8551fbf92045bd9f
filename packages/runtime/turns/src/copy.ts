// The runner's own copy of a plain-JSON value (the host's state, a turn's record): a walk that
// copies arrays and plain objects, several times faster than structuredClone on the small values a
// turn keeps; anything else (a Date, a Map, a cycle, a value nested past MAX_DEPTH) is copied by
// structuredClone, so the copy is exactly what structuredClone would make, or throws what it throws.

/** How deep the walk goes before it hands the whole value to structuredClone (a cycle never ends). */
const MAX_DEPTH = 64;

/** Thrown inside the walk where it cannot copy: the caller falls back to structuredClone. */
const NOT_PLAIN = Symbol('not plain');

const NO_KEYS = {};

/** @internal A copy of `value`, as `structuredClone(value)` makes it. */
export function copyOf<T>(value: T): T {
  // an enumerable key on Object.prototype would be copied by `for…in` as the copy's own: structuredClone decides
  for (const _ in NO_KEYS) return structuredClone(value);
  try {
    return walk(value, 0) as T;
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
    return structuredClone(value);
  }
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    // strings, numbers, booleans, null and undefined copy as they are; a function or symbol does not
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
      throw NOT_PLAIN;
    return value;
  }
  if (depth === MAX_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = walk(value[i], depth + 1);
    return copy;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) throw NOT_PLAIN; // Date, Map, class, null prototype
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = walk((value as Record<string, unknown>)[key], depth + 1);
  return copy;
}
