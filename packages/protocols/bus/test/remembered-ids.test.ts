// The hygiene interceptor's redelivery memory is bounded in bytes, not only in count: an event id
// longer than MAX_REMEMBERED_ID_LENGTH is remembered as its SHA-256.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createHygieneInterceptor,
  createMessageBus,
  type InboundInput,
  MAX_REMEMBERED_ID_LENGTH,
  toRememberedId,
} from '../src/index.js';

const base: InboundInput = { channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: '确认' };
const KB64 = 64 * 1024;

/** A 64 KB event id that differs from the others of its batch in its last characters. */
const longId = (n: number): string => `${'e'.repeat(KB64 - 8)}${String(n).padStart(8, '0')}`;

describe('the redelivery memory', () => {
  it('keeps 1,000 event ids of 64 KB in at most 65 characters each, and still knows each of them', async () => {
    const bus = createMessageBus({ capacity: 2_000 }); // every new id is queued
    const hygiene = createHygieneInterceptor({ maxEventIds: 1_000 });
    bus.intercept(hygiene);
    for (let n = 0; n < 1_000; n++) await bus.publishInbound({ ...base, eventId: longId(n) });
    expect(hygiene.remembered.ids).toBe(1_000);
    expect(hygiene.remembered.chars).toBeLessThanOrEqual(1_000 * (MAX_REMEMBERED_ID_LENGTH + 1));
    // 65 MB of ids went in; what is kept is a ratio of about 1 / 1000 of it.
    expect(hygiene.remembered.chars / (1_000 * KB64)).toBeLessThan(0.001);
    expect((await bus.publishInbound({ ...base, eventId: longId(7) })).status).toBe('intercepted');
    expect((await bus.publishInbound({ ...base, eventId: longId(1_000) })).status).toBe('queued');
  });

  it('stays bounded as ids are forgotten past maxEventIds', async () => {
    const bus = createMessageBus();
    const hygiene = createHygieneInterceptor({ maxEventIds: 3 });
    bus.intercept(hygiene);
    for (let n = 0; n < 10; n++) await bus.publishInbound({ ...base, eventId: longId(n) });
    expect(hygiene.remembered).toEqual({ ids: 3, chars: 3 * (MAX_REMEMBERED_ID_LENGTH + 1) });
  });

  it('keeps a short id as it is and counts its characters', async () => {
    const bus = createMessageBus();
    const hygiene = createHygieneInterceptor();
    bus.intercept(hygiene);
    await bus.publishInbound({ ...base, eventId: 'e1' });
    expect(hygiene.remembered).toEqual({ ids: 1, chars: 'feishu\u0000e1'.length });
  });
});

/** What toRememberedId keeps for an id over 64 characters: `#` and SHA-256 of its UTF-8, by node:crypto. */
const digestKey = (id: string): string => `#${createHash('sha256').update(id, 'utf8').digest('hex')}`;

describe('toRememberedId', () => {
  it('hashes as SHA-256 does, across block boundaries, wide characters and lone surrogates', () => {
    const random = (n: number): string =>
      Array.from({ length: n }, (_, i) => String.fromCharCode((i * 7919 + n * 104_729) % 0xffff)).join('');
    for (const length of [65, 119, 120, 121, 183, 184, 1_000, 70_000]) {
      const id = 'q'.repeat(length);
      expect(toRememberedId(id)).toBe(digestKey(id));
      expect(toRememberedId(random(length))).toBe(digestKey(random(length)));
    }
    const nist = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'.repeat(2); // FIPS 180-2 input, twice
    expect(toRememberedId(nist)).toBe(digestKey(nist));
    expect(toRememberedId(`${'x'.repeat(70)}\ud800`)).toBe(digestKey(`${'x'.repeat(70)}\ufffd`));
  });

  it('keeps an id of up to 64 characters and hashes a longer one with SHA-256', () => {
    const at = 'a'.repeat(MAX_REMEMBERED_ID_LENGTH);
    const over = `${at}b`;
    expect(toRememberedId(at)).toBe(at);
    expect(toRememberedId(over)).toBe(digestKey(over));
    expect(toRememberedId(over)).toHaveLength(MAX_REMEMBERED_ID_LENGTH + 1);
  });
});
