import { fc, test } from '@fast-check/vitest';
import {
  DEFAULT_VOCABULARY_WORDS,
  defineVocabulary,
  MAX_REPLY_LENGTH,
  normalizeExact,
  normalizeReply,
  parseReply,
  REPLY_VERDICTS,
  type Vocabulary,
} from '@parley/confirm';
import { describe, expect, it } from 'vitest';
import { cite } from './catalogue.js';
import { runs } from './config.js';

// The reply parser against its specification: a reply counts only when the whole normalised reply
// is one vocabulary word. Decorations that normalisation removes (case, full-width forms, format
// characters, surrounding whitespace, one closing full stop or exclamation mark) never change the
// verdict; anything else added to a word — a question mark, quotes, another word — makes it unrecognised.

const KIND_OF = new Map<string, 'confirm' | 'cancel' | 'always'>();
for (const kind of ['confirm', 'cancel', 'always'] as const) {
  for (const word of DEFAULT_VOCABULARY_WORDS[kind]) KIND_OF.set(normalizeReply(word), kind);
}
const WORDS = [...KIND_OF.keys()];

/** Full-width forms of ASCII letters, which NFKC folds back. */
const fullWidth = (text: string): string =>
  [...text]
    .map((c) => (c >= '!' && c <= '~' ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c))
    .join('');

const decorated = fc
  .record({
    word: fc.constantFrom(...WORDS),
    upper: fc.boolean(),
    wide: fc.boolean(),
    before: fc.constantFrom('', ' ', '  \t', '\n', '\u3000'),
    after: fc.constantFrom('', '!', '。', '！', ' .', '．', '\n', ' ! '),
    zeroWidth: fc.constantFrom('', '\u200b', '\u200d', '\ufeff', '\u2060'),
    at: fc.nat(),
  })
  .map(({ word, upper, wide, before, after, zeroWidth, at }) => {
    let text = upper ? word.toUpperCase() : word;
    if (wide) text = fullWidth(text);
    const chars = [...text];
    const cut = at % (chars.length + 1);
    text = [...chars.slice(0, cut), zeroWidth, ...chars.slice(cut)].join('');
    return { word, text: `${before}${text}${after}` };
  });

describe('parseReply against its specification', () => {
  test.prop([decorated], { numRuns: runs(500) })(
    `${cite('VOCAB-01')} reads a decorated vocabulary word as its own kind`,
    ({ word, text }) => {
      expect(parseReply(text)).toBe(KIND_OF.get(word));
    },
  );

  test.prop([decorated, fc.constantFrom('a', '吗', '1', '👍', 'no', '确认', 'x y', '?', '？', '!!', '」')], {
    numRuns: runs(500),
  })(`${cite('VOCAB-01')} never matches a word with anything added inside or after it`, ({ text }, extra) => {
    expect(parseReply(`${text} ${extra}`)).toBe('unrecognised');
    expect(parseReply(`${text}${extra}`)).toBe('unrecognised');
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 300 })], { numRuns: runs(1_000) })(
    `${cite('VOCAB-01')} never throws, and recognises only an exact normalised word`,
    (text) => {
      const verdict = parseReply(text);
      expect(REPLY_VERDICTS).toContain(verdict);
      expect(verdict).toBe(KIND_OF.get(normalizeReply(text)) ?? 'unrecognised');
    },
  );

  it(`${cite('VOCAB-01')} cuts and marks only text longer than four times the longest reply`, () => {
    const limit = MAX_REPLY_LENGTH * 4;
    expect(normalizeReply('a'.repeat(limit))).toBe('a'.repeat(limit));
    expect(normalizeReply('a'.repeat(limit + 1))).toBe(`${'a'.repeat(limit)}\ufffd`);
    expect(normalizeExact('A'.repeat(limit))).toBe('A'.repeat(limit));
    expect(normalizeExact('A'.repeat(limit + 1))).toBe(`${'A'.repeat(limit)}\ufffd`);
    expect(parseReply(`${' '.repeat(limit)}yes`)).toBe('unrecognised'); // cut before the word
  });

  it(`${cite('VOCAB-01')} keeps case and punctuation of an exact answer but drops format characters`, () => {
    expect(normalizeExact('  Confirm #1 (YES).\u200b ')).toBe('Confirm #1 (YES).');
    expect(normalizeExact('Y\u200dE\ufe0fS')).toBe('YES');
    expect(normalizeExact('ＤＥＬＥＴＥ ａｌｌ')).toBe('DELETE all');
  });

  it(`${cite('VOCAB-01')} refuses empty and over-long replies even against a hand-made vocabulary`, () => {
    const long = 'x'.repeat(MAX_REPLY_LENGTH + 1);
    const lax: Vocabulary = { confirm: new Set(['', long]), cancel: new Set(), always: new Set() };
    expect(parseReply('', lax)).toBe('unrecognised');
    expect(parseReply(' ... ', lax)).toBe('unrecognised');
    expect(parseReply(long, lax)).toBe('unrecognised');
  });

  it(`${cite('VOCAB-01')} accepts a word of exactly the longest length, and no list means no words`, () => {
    const longest = 'y'.repeat(MAX_REPLY_LENGTH);
    const vocabulary = defineVocabulary({ confirm: [longest], cancel: ['nein'] });
    expect(parseReply(longest, vocabulary)).toBe('confirm');
    expect(vocabulary.always.size).toBe(0);
    expect(parseReply('always', vocabulary)).toBe('unrecognised');
  });

  it(`${cite('VOCAB-01')} names the list and the word of an unusable vocabulary`, () => {
    const refuse = (words: Parameters<typeof defineVocabulary>[0]): unknown => {
      try {
        defineVocabulary(words);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    for (const kind of ['confirm', 'cancel', 'always'] as const) {
      const words = { confirm: ['ja'], cancel: ['nein'], always: ['immer'], [kind]: ['  '] };
      expect(refuse(words)).toMatchObject({
        code: 'invalid_vocabulary',
        message: expect.stringContaining(`Unusable ${kind} word`),
        details: { kind, word: '  ' },
      });
    }
    expect(refuse({ confirm: ['x'.repeat(MAX_REPLY_LENGTH + 1)], cancel: [] })).toMatchObject({
      details: { kind: 'confirm' },
    });
    expect(refuse({ confirm: ['OK'], cancel: ['ok!'] })).toMatchObject({
      code: 'invalid_vocabulary',
      message: '"ok" is both a confirm and a cancel word',
      details: { word: 'ok', kinds: ['confirm', 'cancel'] },
    });
  });
});
