import {
  decodeStoreKey,
  encodeStoreKey,
  type JsonLimits,
  type JsonValue,
  type StoreChange,
  type StoreEntry,
  safeParseJson,
} from '@parley/core';

/** Where one store's data lives in Redis; every name starts with the application prefix. */
export interface Layout {
  readonly prefix: string;
  /** Prefix of the hash holding each entry (`v` version, `j` JSON, `x` expiry in server epoch ms). */
  readonly data: string;
  /** The counter every write increments, so versions never repeat within a prefix. */
  readonly version: string;
  /** The pub/sub channel the write script publishes each change on. */
  readonly changes: string;
}

export function layoutOf(prefix: string): Layout {
  return { prefix, data: `${prefix}data:`, version: `${prefix}version`, changes: `${prefix}changes` };
}

/**
 * The Redis name of a store key: the data prefix and core's lossless key encoding, so keys that
 * UTF-8 would merge (lone surrogates) stay apart. A key without `%`, NUL or surrogates is its own
 * encoding, so its Redis name is what earlier versions wrote.
 */
export function redisKeyOf(layout: Layout, key: string): string {
  return layout.data + encodeStoreKey(key);
}

/**
 * The store key of an encoded key name (the part after the data prefix, or in a change message),
 * or `undefined` when this store cannot have written it: a stray `%`, or a name that is not its
 * key's own encoding (a key holding `%` or a character outside the BMP written by a version before
 * the encoding).
 */
export function storeKeyOf(encoded: string): string | undefined {
  let key: string;
  try {
    key = decodeStoreKey(encoded);
  } catch {
    return undefined;
  }
  return encodeStoreKey(key) === encoded ? key : undefined;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a prefix survives UTF-8 unchanged (no lone surrogate), so it names one Redis key space. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** A decoded hash: an entry, nothing (absent) or the reason it is not one of ours. */
export type Decoded =
  | { readonly ok: true; readonly entry: StoreEntry | undefined }
  | { readonly ok: false; readonly reason: string };

const VERSION = /^[1-9][0-9]{0,15}$/;
const FIELDS = new Set(['v', 'j', 'x']);

/** Validates what HGETALL returned for `key`; never trusts a field it did not check. */
export function decodeEntry(key: string, hash: Record<string, string>, limits: JsonLimits): Decoded {
  const fields = Object.keys(hash);
  if (fields.length === 0) return { ok: true, entry: undefined };
  const unexpected = fields.find((field) => !FIELDS.has(field));
  if (unexpected !== undefined) return { ok: false, reason: `unexpected field "${unexpected}"` };
  const { v, j, x } = hash;
  if (v === undefined || !VERSION.test(v)) return { ok: false, reason: 'missing or malformed version' };
  if (x !== undefined && !VERSION.test(x)) return { ok: false, reason: 'malformed expiry' };
  if (j === undefined) return { ok: false, reason: 'missing value' };
  const parsed = safeParseJson(j, limits);
  if (!parsed.ok) return { ok: false, reason: `${parsed.code}: ${parsed.message}` };
  return { ok: true, entry: toEntry(key, parsed.value, Number(v), x) };
}

export function toEntry(
  key: string,
  value: JsonValue,
  version: number,
  expiresAt: string | undefined,
): StoreEntry {
  return {
    key,
    value,
    version,
    expiresAt: expiresAt === undefined || expiresAt === '' ? undefined : Number(expiresAt),
  };
}

/**
 * Parses a change message published by the write script: `s|<version>|<encoded key>` or
 * `d||<encoded key>`. Anything else on the channel is not ours and yields `undefined`.
 */
export function decodeChange(message: string): StoreChange | undefined {
  const bar = message.indexOf('|', 2);
  if (message[1] !== '|' || bar < 0) return undefined;
  const version = message.slice(2, bar);
  const key = storeKeyOf(message.slice(bar + 1));
  if (key === undefined) return undefined;
  if (message[0] === 's' && VERSION.test(version)) return { key, version: Number(version), kind: 'set' };
  if (message[0] === 'd' && version === '') return { key, version: null, kind: 'delete' };
  return undefined;
}

/** Escapes the glob characters of SCAN MATCH, so a prefix matches only itself. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * The one script through which every write goes, so a write, its version bump and its change
 * message are a single atomic step.
 *
 * KEYS: data key, version counter. ARGV: mode (`set` | `cas`), expected version (`''` for
 * absent), JSON (`''` deletes), ttl ms (`''` for none), channel, encoded store key.
 * Returns `{status, version, expiresAt, existed}` with status `ok`, `mismatch` or `corrupt`.
 */
export const WRITE_SCRIPT = `
local data, seq = KEYS[1], KEYS[2]
local mode, expected, json, ttl, channel, key = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local kind = redis.call('TYPE', data)['ok']
local current = false
local corrupt = false
if kind == 'hash' then
  current = redis.call('HGET', data, 'v')
  if (not current) or (not string.match(current, '^[1-9][0-9]*$')) then
    corrupt = true
    current = false
  end
elseif kind ~= 'none' then
  corrupt = true
end
if mode == 'cas' then
  if corrupt then return {'corrupt', kind, '', ''} end
  if expected == '' then
    if current then return {'mismatch', current, '', ''} end
  elseif current ~= expected then
    return {'mismatch', current or '', '', ''}
  end
end
local existed = '0'
if kind ~= 'none' then existed = '1' end
if json == '' then
  if kind == 'none' then return {'ok', '0', '', existed} end
  redis.call('DEL', data)
  redis.call('PUBLISH', channel, 'd||' .. key)
  return {'ok', current or '0', '', existed}
end
local v = redis.call('INCR', seq)
if current and v <= tonumber(current) then
  v = tonumber(current) + 1
  redis.call('SET', seq, string.format('%d', v))
end
local version = string.format('%d', v)
redis.call('DEL', data)
local expiresAt = ''
if ttl ~= '' then
  local t = redis.call('TIME')
  expiresAt = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ttl))
  redis.call('HSET', data, 'v', version, 'j', json, 'x', expiresAt)
  redis.call('PEXPIREAT', data, expiresAt)
else
  redis.call('HSET', data, 'v', version, 'j', json)
end
redis.call('PUBLISH', channel, 's|' .. version .. '|' .. key)
return {'ok', version, expiresAt, existed}
`;
