// The synchronous SHA-256 / HMAC-SHA256 behind action digests and signed card tokens is internal,
// so this file (unlike the others) imports it directly: it is checked against the published test
// vectors (NIST FIPS 180-4 examples, RFC 4231) and against Web Crypto on random inputs. The hashing
// itself is @noble/hashes' (audited); the mocks below only watch its calls.
import { fc, test } from '@fast-check/vitest';
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it, vi } from 'vitest';
import { digestAction } from '../src/index.js';
import { equalBytes, hmacSha256, sha256, sha256Hex, toHex, utf8 } from '../src/internal/sha256.js';
import { buttonToken, setup } from './helpers.js';

vi.mock('@noble/hashes/sha2.js', async (original) => {
  const real = await original<typeof import('@noble/hashes/sha2.js')>();
  return { ...real, sha256: vi.fn(real.sha256) };
});
vi.mock('@noble/hashes/hmac.js', async (original) => {
  const real = await original<typeof import('@noble/hashes/hmac.js')>();
  return { ...real, hmac: vi.fn(real.hmac) };
});

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const fill = (length: number, byte: number): Uint8Array => new Uint8Array(length).fill(byte);
const hex = (bytes: ArrayBuffer | Uint8Array): string => toHex(new Uint8Array(bytes));

async function webHmac(key: Uint8Array, data: Uint8Array): Promise<string> {
  const imported = await crypto.subtle.importKey(
    'raw',
    Uint8Array.from(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return hex(await crypto.subtle.sign('HMAC', imported, Uint8Array.from(data)));
}

describe('the implementation', () => {
  it('hashes and signs with @noble/hashes, not with a hand-written compression function', () => {
    vi.mocked(nobleSha256).mockClear();
    vi.mocked(nobleHmac).mockClear();
    sha256(text('abc'));
    hmacSha256(text('key'), text('message'));
    expect(vi.mocked(nobleSha256)).toHaveBeenCalledWith(text('abc'));
    expect(vi.mocked(nobleHmac)).toHaveBeenCalledWith(nobleSha256, text('key'), text('message'));
  });
});

describe('sha256', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    [
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
    ],
  ])('hashes the NIST vector %j', (message, digest) => {
    expect(toHex(sha256(text(message)))).toBe(digest);
  });

  it('hashes one million "a" (NIST long message)', () => {
    expect(toHex(sha256(fill(1_000_000, 0x61)))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it('agrees with Web Crypto at every length around the block and padding boundaries', async () => {
    for (let length = 0; length <= 130; length++) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect(toHex(sha256(data))).toBe(hex(await crypto.subtle.digest('SHA-256', data)));
    }
  });

  test.prop([fc.uint8Array({ maxLength: 600 })])('agrees with Web Crypto on random input', async (data) => {
    expect(toHex(sha256(data))).toBe(hex(await crypto.subtle.digest('SHA-256', Uint8Array.from(data))));
  });
});

describe('hmacSha256 (RFC 4231)', () => {
  const large = fill(131, 0xaa);
  it.each([
    [
      '1',
      fill(20, 0x0b),
      text('Hi There'),
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    ],
    [
      '2',
      text('Jefe'),
      text('what do ya want for nothing?'),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    ],
    ['3', fill(20, 0xaa), fill(50, 0xdd), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
    [
      '4',
      Uint8Array.from({ length: 25 }, (_, i) => i + 1),
      fill(50, 0xcd),
      '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
    ],
    [
      '6',
      large,
      text('Test Using Larger Than Block-Size Key - Hash Key First'),
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    ],
    [
      '7',
      large,
      text(
        'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
      ),
      '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    ],
  ])('matches test case %s', (_, key, data, mac) => {
    expect(toHex(hmacSha256(key, data))).toBe(mac);
  });

  test.prop([fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 300 })])(
    'agrees with Web Crypto on random keys and messages',
    async (key, data) => {
      fc.pre(key.length > 0); // Web Crypto refuses an empty HMAC key
      expect(toHex(hmacSha256(key, data))).toBe(await webHmac(key, data));
    },
  );
});

describe('utf8', () => {
  it.each([
    ['ascii', 'DELETE FROM t'],
    ['two-byte', 'é ñ ß'],
    ['three-byte', '确认 取消'],
    ['a surrogate pair', '👍 ok'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone high surrogate at the end', 'a\ud83d'],
    ['a lone low surrogate', '\udc00x'],
  ])('encodes %s as TextEncoder does', (_, value) => {
    expect([...utf8(value)]).toEqual([...new TextEncoder().encode(value)]);
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 64 })])(
    'agrees with TextEncoder on any string',
    (value) => {
      expect([...utf8(value)]).toEqual([...new TextEncoder().encode(value)]);
    },
  );
});

describe('sha256Hex', () => {
  test.prop([fc.array(fc.string({ unit: 'binary', maxLength: 700 }), { minLength: 1, maxLength: 4 })])(
    'is the hex SHA-256 of the UTF-8 bytes of each text, whatever the texts hashed before it (its buffer is reused and grows)',
    (values) => {
      for (const value of values) {
        expect(sha256Hex(value)).toBe(toHex(nobleSha256(new TextEncoder().encode(value))));
      }
    },
  );
});

describe('toHex', () => {
  test.prop([fc.array(fc.uint8Array({ maxLength: 80 }), { minLength: 1, maxLength: 4 })])(
    'writes two lowercase digits per byte, whatever its length and the bytes written before (its 32-byte buffer is reused)',
    (list) => {
      for (const bytes of list) {
        const expected = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
        expect(toHex(bytes)).toBe(expected);
      }
    },
  );

  it('hands each digest its own string: a later digest does not change an earlier one', () => {
    const first = toHex(fill(32, 0xab));
    toHex(fill(32, 0x01));
    expect(first).toBe('ab'.repeat(32));
  });
});

describe('equalBytes', () => {
  it('is true only for the same bytes of the same length', () => {
    expect(equalBytes(text('abc'), text('abc'))).toBe(true);
    expect(equalBytes(text('abc'), text('abd'))).toBe(false);
    expect(equalBytes(text('abc'), text('ab'))).toBe(false);
  });
});

describe('through the public API', () => {
  it('digests an action as Web Crypto would: SHA-256 of the JSON name, a newline and the sorted args', async () => {
    const digest = await digestAction({
      name: 'sql.delete',
      args: { where: { b: 1, a: 2 }, table: 'orders' },
    });
    const expected = await crypto.subtle.digest(
      'SHA-256',
      Uint8Array.from(text('"sql.delete"\n{"table":"orders","where":{"a":2,"b":1}}')),
    );
    expect(digest).toBe(hex(expected));
  });

  it('signs card tokens with the HMAC-SHA256 that Web Crypto computes (base64url)', async () => {
    const h = await setup({ secret: 'host-secret' });
    const { id } = await h.ask();
    const [body, choice, signature] = buttonToken(h.channel, 'confirm').split('.');
    expect(`${body}.${choice}`).toBe(`${id}.confirm`);
    const mac = await webHmac(text('host-secret'), text(`${id}.confirm`));
    const decoded = Uint8Array.from(
      atob((signature as string).replaceAll('-', '+').replaceAll('_', '/') + '='),
      (char) => char.charCodeAt(0),
    );
    expect(hex(decoded)).toBe(mac);
  });
});
