import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assertTtlMs, createMemoryStore, decodeStoreKey, encodeStoreKey, MAX_TTL_MS } from '../src/index.js';

describe('assertTtlMs', () => {
  it('accepts a finite number of milliseconds up to MAX_TTL_MS', () => {
    expect(assertTtlMs(1)).toBe(1);
    expect(assertTtlMs(MAX_TTL_MS)).toBe(MAX_TTL_MS);
  });

  it('refuses zero, negatives, non-numbers and values past MAX_TTL_MS with invalid_timeout', () => {
    for (const value of [
      0,
      -1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e16,
      1e300,
      MAX_TTL_MS + 1,
      '5',
      null,
    ]) {
      expect(() => assertTtlMs(value)).toThrow(expect.objectContaining({ code: 'invalid_timeout' }));
    }
  });

  it('names the option and the value in the error details', () => {
    expect(() => assertTtlMs(1e16, 'retainMs')).toThrow(
      expect.objectContaining({ details: { name: 'retainMs', value: 1e16 } }),
    );
  });

  it('is what the memory store applies to ttlMs', async () => {
    const store = createMemoryStore();
    await expect(store.set('k', 1, { ttlMs: 1e16 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    await expect(store.compareAndSet('k', null, 1, { ttlMs: 1e300 })).rejects.toMatchObject({
      code: 'invalid_timeout',
    });
    expect(await store.get('k')).toBeUndefined();
    store.close();
  });
});

describe('encodeStoreKey', () => {
  it('leaves ordinary keys as they are', () => {
    expect(encodeStoreKey('confirm:chat-1/确认 x*?[')).toBe('confirm:chat-1/确认 x*?[');
  });

  it('escapes every surrogate, the percent sign and NUL', () => {
    expect(encodeStoreKey('call_\ud800')).toBe('call_%uD800');
    expect(encodeStoreKey('call_\udbff')).toBe('call_%uDBFF');
    expect(encodeStoreKey('😀')).toBe('%uD83D%uDE00');
    expect(encodeStoreKey('50%\u0000')).toBe('50%25%00');
  });

  it('refuses to decode text it cannot have written', () => {
    for (const text of ['%', '%2', '%u12', '%uD8G0', '%u0041', '%41', 'a%zz']) {
      expect(() => decodeStoreKey(text)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });

  test.prop([fc.string({ unit: 'binary' })])('round-trips any string, lone surrogates included', (key) => {
    expect(decodeStoreKey(encodeStoreKey(key))).toBe(key);
  });

  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })])(
    'gives distinct keys distinct text',
    (a, b) => {
      expect(encodeStoreKey(a) === encodeStoreKey(b)).toBe(a === b);
    },
  );

  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })])(
    'keeps prefixes: an encoded prefix starts an encoded key exactly when the prefix starts the key',
    (prefix, key) => {
      expect(encodeStoreKey(key).startsWith(encodeStoreKey(prefix))).toBe(key.startsWith(prefix));
      expect(encodeStoreKey(prefix + key).startsWith(encodeStoreKey(prefix))).toBe(true);
    },
  );

  it('gives well-formed UTF-16 text, so UTF-8 backends keep it byte for byte', () => {
    const text = encodeStoreKey('a\ud800b\udfffc😀');
    expect(/[\ud800-\udfff]/.test(text)).toBe(false);
    expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
  });
});
