// The UTF-8 length of a value's canonical JSON, measured without writing the text: exactly, or as
// an upper bound that reads no string's characters.

/** Nesting `canonicalJson` refuses past (`json_too_deep`); the walk refuses the same values. */
const MAX_DEPTH = 1_000;

/**
 * The longest text `JSON.stringify` writes for a finite number: 17 digits after `-0.00000`
 * (`-0.0000012345678901234567`, 25 characters; `-1.7976931348623157e+308` has 24).
 */
export const NUMBER_BOUND = 25;

/** What no object's `constructor` is: the shape read in objectBound compares with it. */
const SHAPE_READ = Symbol('shape read');

/**
 * The UTF-8 byte length of `canonicalJson(value)` from `@parley/core` (`exact`), or an upper bound
 * of it that counts every string character as its longest escape, 6 bytes (not `exact`: no string
 * is scanned); `-1` for a value canonicalJson refuses (what is not JSON: functions, symbols,
 * bigints, numbers that are not finite, `undefined` in an array or at the root, cycles, objects
 * that are not plain, nesting past 1 000 levels, and a value whose getter or proxy throws). Keys are not sorted: the order does not
 * change the length.
 */
export function jsonBytes(value: unknown, exact: boolean): number {
  if (value === undefined) return -1;
  try {
    // a result is mostly an object: its bound is taken straight away (as bytesOf would at depth 0)
    const record = !exact && typeof value === 'object' && value !== null && !Array.isArray(value);
    const bytes = record ? objectBound(value, 1) : bytesOf(value, 0, exact);
    // The bound's walk also sees enumerable keys a polluted prototype adds: only the exact walk
    // (own keys, as canonicalJson reads them) may call a value not JSON.
    return bytes < 0 && !exact ? bytesOf(value, 0, true) : bytes;
  } catch {
    return -1; // a getter or proxy that throws when read: canonicalJson could not write it either
  }
}

/** {@link jsonBytes} of a call's content, `canonicalJson({ args, tool })`. */
export function contentBytes(tool: string, args: unknown, exact: boolean): number {
  const head = 9 + (exact ? stringBytes(tool) : tool.length * 6 + 2); // {"tool":"…"}
  if (args === undefined) return head; // left out, as JSON does
  // arguments are mostly an object: its bound is taken straight away (as bytesOf would at depth 1)
  const record = !exact && typeof args === 'object' && args !== null && !Array.isArray(args);
  let bytes = record ? objectBound(args, 2) : bytesOf(args, 1, exact);
  if (bytes < 0 && !exact) bytes = bytesOf(args, 1, true); // as in jsonBytes
  return bytes < 0 ? -1 : head + 8 + bytes; // "args":…,
}

function bytesOf(value: unknown, depth: number, exact: boolean): number {
  if (!exact) return boundOf(value, depth);
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      if (!Number.isFinite(value)) return -1;
      return Object.is(value, -0) ? 2 : String(value).length; // canonicalJson writes -0 as -0
    case 'object':
      if (value === null) return 4;
      if (depth >= MAX_DEPTH) return -1; // also ends a cycle
      return Array.isArray(value) ? arrayBytes(value, depth + 1) : objectBytes(value, depth + 1);
    default:
      return -1;
  }
}

function arrayBytes(value: readonly unknown[], depth: number): number {
  let total = value.length === 0 ? 2 : value.length + 1; // brackets and commas
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const bytes = item === undefined ? -1 : bytesOf(item, depth, true);
    if (bytes < 0) return -1;
    total += bytes;
  }
  return total;
}

function objectBytes(value: object, depth: number): number {
  if (!isPlain(value)) return -1; // Date, Map, a class
  const record = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record);
  let total = 1; // the braces, less the comma the first member does not have
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = record[key];
    if (item === undefined) continue; // left out, as JSON does
    const bytes = bytesOf(item, depth, true);
    if (bytes < 0) return -1;
    total += stringBytes(key) + 2 + bytes; // ,"key":value
  }
  return total === 1 ? 2 : total;
}

function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The upper bound of a value's length, reading no string's characters (text is the first case
 * of each loop: most arguments and results are objects of text).
 */
function boundOf(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      return Number.isFinite(value) ? NUMBER_BOUND : -1;
    case 'object':
      if (value === null) return 4;
      if (depth >= MAX_DEPTH) return -1; // also ends a cycle
      return Array.isArray(value) ? arrayBound(value, depth + 1) : objectBound(value, depth + 1);
    default:
      return -1;
  }
}

function arrayBound(value: readonly unknown[], depth: number): number {
  let total = value.length === 0 ? 2 : value.length + 1; // brackets and commas
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (typeof item === 'string') total += item.length * 6 + 2;
    else {
      const bytes = item === undefined ? -1 : boundOf(item, depth);
      if (bytes < 0) return -1;
      total += bytes;
    }
  }
  return total;
}

/**
 * An upper bound of an object's length through `for…in`, which allocates no key list; it also
 * walks enumerable keys of a polluted prototype, which only makes the bound larger (or the value
 * refused, which the exact walk then decides).
 */
function objectBound(value: object, depth: number): number {
  // isPlain written out: a call shared with objectBytes sees every shape and is not made inline.
  // The read before it checks the object's shape, from which the optimiser then answers
  // getPrototypeOf without calling it (a call each time otherwise); its value is not used.
  if ((value as { constructor?: unknown }).constructor === SHAPE_READ) return -1;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return -1; // Date, Map, a class
  const record = value as Readonly<Record<string, unknown>>;
  let total = 1;
  for (const key in record) {
    const item = record[key];
    let bytes: number;
    if (typeof item === 'string') bytes = item.length * 6 + 2;
    else if (item === undefined) continue;
    else {
      bytes = boundOf(item, depth);
      if (bytes < 0) return -1;
    }
    total += key.length * 6 + 4 + bytes; // ,"key":value
  }
  return total === 1 ? 2 : total;
}

/** The UTF-8 length of `JSON.stringify(text)`: quotes, escapes, and lone surrogates as `\uXXXX`. */
function stringBytes(text: string): number {
  let length = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code >= 0x20) length += code === 0x22 || code === 0x5c ? 2 : 1;
      else length += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    } else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        length += 4;
        i++;
      } else length += 6;
    } else if (code >= 0xdc00 && code <= 0xdfff) length += 6;
    else length += 3;
  }
  return length;
}
