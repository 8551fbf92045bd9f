import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSessionKey, sessionKeyOf } from '../src/index.js';

describe('sessionKeyOf / parseSessionKey', () => {
  it('joins channel, chat and thread with colons', () => {
    expect(sessionKeyOf({ channel: 'feishu', chatId: 'oc_1' })).toBe('feishu:oc_1');
    expect(sessionKeyOf({ channel: 'slack', chatId: 'C1', threadId: 't' })).toBe('slack:C1:t');
  });

  it('escapes colons and percent signs so that different addresses never share a key', () => {
    const a = sessionKeyOf({ channel: 'x', chatId: 'a:b' });
    const b = sessionKeyOf({ channel: 'x', chatId: 'a', threadId: 'b' });
    expect(a).not.toBe(b);
    expect(parseSessionKey(a)).toEqual({ channel: 'x', chatId: 'a:b' });
    expect(parseSessionKey(sessionKeyOf({ channel: 'x', chatId: '%3A' }))).toEqual({
      channel: 'x',
      chatId: '%3A',
    });
  });

  it('round-trips any address', () => {
    const part = fc.string({ minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(part, part, fc.option(part, { nil: undefined }), (channel, chatId, threadId) => {
        const address = threadId === undefined ? { channel, chatId } : { channel, chatId, threadId };
        expect(parseSessionKey(sessionKeyOf(address))).toEqual(address);
      }),
    );
  });

  it.each(['', 'only', 'a:b:c:d', 'a::b', 'a:%zz', 42])('refuses %j with invalid_argument', (key) => {
    expect(() => parseSessionKey(key as string)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
