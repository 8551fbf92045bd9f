import { CoreError, type CoreErrorCode } from './errors.js';
import { findNonJson, isPlainJson } from './internal/plain-json.js';

/**
 * A JSON value: what Parley persists and what safe parsing returns.
 *
 * @example
 * ```ts
 * import type { JsonValue } from '@parley/core';
 *
 * const value: JsonValue = { id: 'req_1', tags: ['a', 'b'], done: false, at: 0, note: null };
 * ```
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * Limits for {@link parseJson}; every field has a safe default.
 *
 * @example
 * ```ts
 * import type { JsonLimits } from '@parley/core';
 *
 * const limits: JsonLimits = { maxBytes: 64 * 1024, maxDepth: 16 };
 * ```
 */
export interface JsonLimits {
  /** Largest accepted document in UTF-8 bytes; {@link DEFAULT_JSON_LIMITS} `.maxBytes` by default. */
  readonly maxBytes?: number;
  /** Deepest accepted nesting of arrays and objects (the root value is depth 1). */
  readonly maxDepth?: number;
  /** Most values (objects, arrays, primitives) accepted in one document. */
  readonly maxNodes?: number;
  /** Keys refused at any depth; `__proto__`, `constructor` and `prototype` by default. */
  readonly forbiddenKeys?: readonly string[];
}

/**
 * The limits {@link parseJson} applies when none are given: 1 MiB, depth 64, 100 000 values, and
 * the keys `__proto__`, `constructor`, `prototype` refused.
 *
 * @example
 * ```ts
 * import { DEFAULT_JSON_LIMITS } from '@parley/core';
 *
 * console.log(DEFAULT_JSON_LIMITS.maxDepth); // 64
 * ```
 */
export const DEFAULT_JSON_LIMITS = {
  maxBytes: 1024 * 1024,
  maxDepth: 64,
  maxNodes: 100_000,
  forbiddenKeys: ['__proto__', 'constructor', 'prototype'],
} as const satisfies Required<JsonLimits>;

/**
 * The codes a refused JSON document can have.
 *
 * @example
 * ```ts
 * import type { JsonErrorCode } from '@parley/core';
 *
 * const code: JsonErrorCode = 'json_too_large';
 * ```
 */
export type JsonErrorCode = Extract<
  CoreErrorCode,
  'json_syntax' | 'json_too_large' | 'json_too_deep' | 'json_too_many_nodes' | 'json_forbidden_key'
>;

/**
 * The result of {@link safeParseJson}.
 *
 * @example
 * ```ts
 * import type { JsonParseResult } from '@parley/core';
 *
 * const refused: JsonParseResult = { ok: false, code: 'json_syntax', message: 'Unexpected end of JSON input' };
 * ```
 */
export type JsonParseResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly code: JsonErrorCode; readonly message: string; readonly path?: string };

/**
 * Parses untrusted JSON text and never throws: the byte size is checked before parsing, then one
 * iterative pass checks depth, node count and forbidden keys at every depth.
 *
 * Use it on every transport path (webhooks, model output, peer messages); a refusal is data.
 *
 * @example
 * ```ts
 * import { safeParseJson } from '@parley/core';
 *
 * const result = safeParseJson('{"a":{"__proto__":{"polluted":true}}}');
 * if (!result.ok) console.log(result.code, result.path); // json_forbidden_key a.__proto__
 * ```
 */
export function safeParseJson(text: string, limits: JsonLimits = {}): JsonParseResult {
  if (typeof text !== 'string') return { ok: false, code: 'json_syntax', message: 'Expected a JSON string' };
  const maxBytes = limits.maxBytes ?? DEFAULT_JSON_LIMITS.maxBytes;
  // Written so a limit that is not a number (NaN) refuses everything instead of nothing.
  if (!(text.length <= maxBytes) || (text.length * 3 > maxBytes && utf8Length(text) > maxBytes)) {
    return { ok: false, code: 'json_too_large', message: `The document is larger than ${maxBytes} bytes` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      code: 'json_syntax',
      message: error instanceof Error ? error.message : 'Invalid JSON',
    };
  }
  const refusal = inspect(value, limits);
  return refusal ?? { ok: true, value: value as JsonValue }; // JSON.parse only yields JSON values
}

/**
 * Parses untrusted JSON text with the same checks as {@link safeParseJson}, throwing on refusal.
 *
 * @throws CoreError `json_syntax`, `json_too_large`, `json_too_deep`, `json_too_many_nodes` or
 * `json_forbidden_key`; `details.path` names where a depth or key problem was found.
 * @example
 * ```ts
 * import { parseJson } from '@parley/core';
 *
 * const value = parseJson('{"intent":"notify"}', { maxBytes: 4096, maxDepth: 8 });
 * console.log(value); // { intent: 'notify' }
 * ```
 */
export function parseJson(text: string, limits: JsonLimits = {}): JsonValue {
  const result = safeParseJson(text, limits);
  if (result.ok) return result.value;
  throw new CoreError(result.code, result.message, {
    details: result.path === undefined ? {} : { path: result.path },
  });
}

/**
 * Serialises a value to JSON, refusing what would not survive a round trip (functions, symbols,
 * `undefined` at the root, `NaN`/`Infinity`, bigints, cycles, and objects that are not plain such as
 * `Date` or `Map`).
 *
 * Use it before persisting, so a bad value fails loudly at write time instead of being silently
 * altered by `JSON.stringify`. With `limits`, the text is also held to what `parseJson` would
 * accept under the same limits (size, depth, node count, forbidden keys), so a store never writes
 * a value it would refuse to read back.
 *
 * @throws CoreError `json_not_serializable` naming the path of the first bad value; with `limits`,
 * the code `parseJson` would refuse the text with (`json_too_large`, `json_too_deep`, …).
 * @example
 * ```ts
 * import { isParleyError, stringifyJson } from '@parley/core';
 *
 * console.log(stringifyJson({ id: 'a', n: 1 })); // {"id":"a","n":1}
 * try {
 *   stringifyJson({ a: { b: { c: 1 } } }, { maxDepth: 2 });
 * } catch (error) {
 *   console.log(isParleyError(error, 'json_too_deep')); // true
 * }
 * ```
 */
export function stringifyJson(value: unknown, limits?: JsonLimits): string {
  // The fast pass builds no paths; the path of a refusal is found by a second pass, on failure only.
  const json = isPlainJson(value, 0) ? JSON.stringify(value) : slowStringify(value);
  if (limits === undefined) return json;
  const check = safeParseJson(json, limits);
  if (!check.ok) {
    throw new CoreError(check.code, check.message, {
      details: check.path === undefined ? {} : { path: check.path },
    });
  }
  return json;
}

function slowStringify(value: unknown): string {
  const bad = findNonJson(value, '', new Set());
  if (bad !== undefined) {
    throw new CoreError('json_not_serializable', `The value at "${bad || '(root)'}" is not JSON`, {
      details: { path: bad },
    });
  }
  return JSON.stringify(value);
}

function inspect(root: unknown, limits: JsonLimits): Extract<JsonParseResult, { ok: false }> | undefined {
  const maxDepth = limits.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth;
  const maxNodes = limits.maxNodes ?? DEFAULT_JSON_LIMITS.maxNodes;
  const forbidden = limits.forbiddenKeys ?? DEFAULT_JSON_LIMITS.forbiddenKeys;
  // The fast pass keeps no paths; a refusal is located by a second, slower pass.
  const values: unknown[] = [root];
  const depths: number[] = [1];
  let nodes = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() as number;
    if (!(++nodes <= maxNodes)) {
      return {
        ok: false,
        code: 'json_too_many_nodes',
        message: `The document has more than ${maxNodes} values`,
      };
    }
    if (value === null || typeof value !== 'object') continue;
    if (!(depth <= maxDepth)) {
      const path = locate(root, (_, d, isObject) => isObject && !(d <= maxDepth));
      return {
        ok: false,
        code: 'json_too_deep',
        message: `The document nests deeper than ${maxDepth}`,
        path,
      };
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        values.push(value[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in value) {
      if (forbidden.includes(key)) {
        const path = locate(root, (k) => k !== undefined && forbidden.includes(k));
        return { ok: false, code: 'json_forbidden_key', message: `The key "${key}" is not allowed`, path };
      }
      values.push((value as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

/** Finds the path of the first node (depth-first) matching `test`; only runs on refusal. */
function locate(
  root: unknown,
  test: (key: string | undefined, depth: number, isObject: boolean) => boolean,
): string {
  const stack: { value: unknown; key: string | undefined; depth: number; path: string }[] = [
    { value: root, key: undefined, depth: 1, path: '' },
  ];
  while (stack.length > 0) {
    const { value, key, depth, path } = stack.pop() as (typeof stack)[number];
    const isObject = value !== null && typeof value === 'object';
    if (test(key, depth, isObject)) return path;
    if (!isObject) continue;
    const children = Array.isArray(value)
      ? value.map((item, i) => ({
          value: item as unknown,
          key: undefined,
          depth: depth + 1,
          path: `${path}[${i}]`,
        }))
      : Object.keys(value).map((k) => ({
          value: (value as Record<string, unknown>)[k],
          key: k,
          depth: depth + 1,
          path: path === '' ? k : `${path}.${k}`,
        }));
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as (typeof stack)[number]);
  }
  return '';
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4; // a surrogate pair is one 4-byte code point
      i++;
    } else bytes += 3; // a lone surrogate is written as U+FFFD, 3 bytes
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
