import { CoreError } from './errors.js';

/**
 * Writes a JSON value in one canonical text: object keys sorted by UTF-16 code unit at every
 * depth, no white space, `-0` kept as `-0`, every own key written (an own `__proto__` key
 * included, as `JSON.parse` creates it).
 *
 * Use it to decide whether two values are the same content: a call, a decision or an effect is
 * the same only when its canonical text is. Two values have equal text exactly when they are the
 * same JSON, key order aside: keys are never Unicode-normalised, lone surrogates are escaped
 * (so distinct), and `0` and `-0` differ.
 *
 * @throws CoreError `json_not_serializable` for what is not JSON (functions, symbols, bigints,
 * `NaN`/`Infinity`, `undefined` in an array or at the root, cycles, `Date`/`Map`/class
 * instances), with `details.path`; `json_too_deep` past 1 000 levels of nesting. Properties whose value is `undefined` are left out, as JSON does.
 * @example
 * ```ts
 * import { canonicalJson } from '@parley/core';
 *
 * console.log(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })); // {"a":[{"c":3,"d":2}],"b":1}
 * console.log(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))); // {"__proto__":{"x":1}}
 * ```
 */
export function canonicalJson(value: unknown): string {
  // Values whose keys are already in order everywhere are written by JSON.stringify, which then
  // writes exactly the canonical text; the check allocates nothing but each object's key list.
  if (typeof value === 'object' && value !== null && inOrder(value, 0)) return JSON.stringify(value);
  // The fast pass builds no paths; when it gives up, the slow pass names the path (and throws).
  const text = fast(value, []);
  if (text !== undefined) return text;
  const parts: string[] = [];
  write(value, '', parts, new Set());
  return parts.join('');
}

/**
 * Whether `JSON.stringify(value)` is the canonical text: plain objects and arrays only, every
 * object's keys already sorted, no `-0`, no number that is not finite, nothing JSON leaves out or
 * turns into `null` (a function, symbol, bigint, `undefined` in an array), and no more than
 * {@link SHALLOW} levels of nesting (which also rules out cycles). `false` sends the value to the
 * passes that sort, refuse and name paths.
 */
function inOrder(value: object, depth: number): boolean {
  if (depth >= SHALLOW) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!itemInOrder(value[i], depth)) return false;
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (i > 0 && (keys[i - 1] as string) >= key) return false;
    const item = record[key];
    if (item !== undefined && !itemInOrder(item, depth)) return false;
  }
  return true;
}

function itemInOrder(item: unknown, depth: number): boolean {
  switch (typeof item) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(item) && !Object.is(item, -0);
    case 'object':
      return item === null || inOrder(item, depth + 1);
    default:
      return false;
  }
}

/** Nesting the JSON.stringify path checks; deeper values take the other passes. */
const SHALLOW = 64;

/** The canonical text of `value`, or `undefined` for anything `write` would refuse. */
function fast(value: unknown, open: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) return undefined;
      return Object.is(value, -0) ? '-0' : JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (open.length >= MAX_CANONICAL_DEPTH || open.includes(value)) return undefined;
      open.push(value);
      const text = Array.isArray(value) ? fastArray(value, open) : fastObject(value, open);
      open.pop();
      return text;
    }
    default:
      return undefined;
  }
}

function fastArray(value: readonly unknown[], open: object[]): string | undefined {
  let text = '[';
  for (let i = 0; i < value.length; i++) {
    const item = fast(value[i], open);
    if (item === undefined) return undefined;
    text += i === 0 ? item : `,${item}`;
  }
  return `${text}]`;
}

function fastObject(value: object, open: object[]): string | undefined {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = value as Readonly<Record<string, unknown>>;
  const keys = sortedKeys(record);
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = record[key];
    if (item === undefined) continue;
    const written = fast(item, open);
    if (written === undefined) return undefined;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${written}`;
  }
  return `${text}}`;
}

/**
 * The own enumerable keys in UTF-16 code-unit order. Most objects arrive with few keys, often
 * already in order: those are put in order in place (no comparator, no sort buffer); larger ones
 * take `Array.prototype.sort`, which orders strings the same way.
 */
function sortedKeys(record: object): string[] {
  const keys = Object.keys(record);
  const n = keys.length;
  if (n > 16) return keys.sort();
  for (let i = 1; i < n; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    if ((keys[j] as string) <= key) continue;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** Nesting past this is refused (`json_too_deep`) rather than left to overflow the stack. */
const MAX_CANONICAL_DEPTH = 1_000;

function write(value: unknown, path: string, parts: string[], open: Set<object>): void {
  switch (typeof value) {
    case 'string':
      parts.push(JSON.stringify(value));
      return;
    case 'boolean':
      parts.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(path);
      parts.push(Object.is(value, -0) ? '-0' : JSON.stringify(value));
      return;
    case 'object':
      if (value === null) {
        parts.push('null');
        return;
      }
      if (open.has(value)) refuse(path);
      if (open.size >= MAX_CANONICAL_DEPTH) {
        throw new CoreError('json_too_deep', `The value nests deeper than ${MAX_CANONICAL_DEPTH}`, {
          details: { path, maxDepth: MAX_CANONICAL_DEPTH },
        });
      }
      if (Array.isArray(value)) writeArray(value, path, parts, open);
      else writeObject(value, path, parts, open);
      return;
    default:
      refuse(path);
  }
}

function writeArray(value: readonly unknown[], path: string, parts: string[], open: Set<object>): void {
  open.add(value);
  parts.push('[');
  for (let i = 0; i < value.length; i++) {
    if (i > 0) parts.push(',');
    write(value[i], `${path}[${i}]`, parts, open);
  }
  parts.push(']');
  open.delete(value);
}

function writeObject(value: object, path: string, parts: string[], open: Set<object>): void {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) refuse(path); // Date, Map, class
  open.add(value);
  const record = value as Readonly<Record<string, unknown>>; // a plain object: string keys only count
  parts.push('{');
  let first = true;
  for (const key of sortedKeys(record)) {
    const item = record[key];
    if (item === undefined) continue; // JSON leaves undefined properties out
    if (!first) parts.push(',');
    first = false;
    parts.push(JSON.stringify(key), ':');
    write(item, path === '' ? key : `${path}.${key}`, parts, open);
  }
  parts.push('}');
  open.delete(value);
}

function refuse(path: string): never {
  throw new CoreError('json_not_serializable', `The value at "${path || '(root)'}" is not JSON`, {
    details: { path },
  });
}
