import { fc, it as fcIt } from '@fast-check/vitest';
import { DEFAULT_VOCABULARY_WORDS, MAX_REPLY_LENGTH, parseReply } from '@parley/confirm';
import { describe, expect, it } from 'vitest';
import { cite } from './catalogue.js';
import { runs } from './config.js';
import { CATEGORIES, REPLY_CORPUS } from './replies.corpus.js';

/** The raw cap: longer text is cut and marked before normalising, so it never matches a word. */
const RAW_CAP = MAX_REPLY_LENGTH * 4;

const CONFIRM_WORDS: readonly string[] = DEFAULT_VOCABULARY_WORDS.confirm;
const ALL_WORDS: readonly string[] = [
  ...DEFAULT_VOCABULARY_WORDS.confirm,
  ...DEFAULT_VOCABULARY_WORDS.cancel,
  ...DEFAULT_VOCABULARY_WORDS.always,
];
const VOCABULARY = new Map<string, string>();
for (const [kind, words] of Object.entries(DEFAULT_VOCABULARY_WORDS)) {
  for (const word of words) VOCABULARY.set(word.toLowerCase(), kind);
}

const FORMAT_CHARS = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u2066',
  '\u2069',
  '\u202e',
  '\ufe0f',
];
const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u3000', '\u00a0', '\u2003'];
const STOPS = ['。', '.', '!', '！'];

/** Replies: vocabulary words in any case, words glued together, and arbitrary text. */
const reply = fc.oneof(
  fc.constantFrom(...ALL_WORDS),
  fc.constantFrom(...ALL_WORDS).map((w) => w.toUpperCase()),
  fc
    .array(fc.constantFrom(...ALL_WORDS, ' ', '?', '吗', '👍', '@bot'), { minLength: 1, maxLength: 4 })
    .map((a) => a.join('')),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
);

/** Inserts `extra` strings at random positions of `text`. */
const withInserted = (alphabet: readonly string[]) =>
  fc
    .tuple(reply, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...alphabet)), { minLength: 1, maxLength: 6 }))
    .map(([text, inserts]) => {
      const chars = [...text];
      for (const [at, extra] of inserts) chars.splice(at % (chars.length + 1), 0, extra);
      return { text, decorated: chars.join('') };
    });

describe('the labelled reply corpus', () => {
  it(`${cite('PARSE-01')} has at least 300 replies, in every category, Chinese and English`, () => {
    expect(REPLY_CORPUS.length).toBeGreaterThanOrEqual(300);
    for (const category of CATEGORIES) {
      expect(
        REPLY_CORPUS.some((r) => r.category === category),
        category,
      ).toBe(true);
    }
    expect(REPLY_CORPUS.filter((r) => /\p{Script=Han}/u.test(r.text)).length).toBeGreaterThanOrEqual(100);
    expect(REPLY_CORPUS.filter((r) => /[a-z]/i.test(r.text)).length).toBeGreaterThanOrEqual(100);
    for (const verdict of ['confirm', 'cancel', 'unrecognised'] as const) {
      expect(REPLY_CORPUS.filter((r) => r.expected === verdict).length).toBeGreaterThanOrEqual(40);
    }
  });

  it(`${cite('PARSE-01')} reads every reply of the corpus as labelled`, () => {
    const wrong = REPLY_CORPUS.filter((r) => parseReply(r.text) !== r.expected).map(
      (r) => `${r.category}: ${JSON.stringify(r.text)} → ${parseReply(r.text)}, labelled ${r.expected}`,
    );
    expect(wrong).toEqual([]);
  });

  const spoilers = [
    [cite('PARSE-02'), ['question']],
    [cite('PARSE-03'), ['negation']],
    [cite('PARSE-04'), ['qualifier', 'condition']],
    [cite('PARSE-05'), ['mixed']],
    [cite('PARSE-06'), ['look-alike']],
  ] as const;
  for (const [tag, categories] of spoilers) {
    const list: readonly string[] = categories;
    it(`${tag} never confirms a ${list.join(' or ')}`, () => {
      const replies = REPLY_CORPUS.filter((r) => list.includes(r.category));
      expect(replies.length).toBeGreaterThanOrEqual(10);
      for (const r of replies) {
        const verdict = parseReply(r.text);
        if (verdict === 'confirm' || verdict === 'always')
          throw new Error(`${JSON.stringify(r.text)} confirmed`);
      }
    });
  }

  it(`${cite('PARSE-05')} neither confirms nor cancels on a mixed answer`, () => {
    for (const r of REPLY_CORPUS.filter((x) => x.category === 'mixed')) {
      expect(parseReply(r.text), r.text).toBe('unrecognised');
    }
  });
});

describe('metamorphic properties of parseReply', () => {
  fcIt.prop([withInserted(FORMAT_CHARS)], { numRuns: runs(1000) })(
    `${cite('PARSE-07')} gives the same verdict with format characters inserted anywhere`,
    ({ text, decorated }) => {
      fc.pre(decorated.length <= RAW_CAP);
      expect(parseReply(decorated)).toBe(parseReply(text));
    },
  );

  fcIt.prop([reply, fc.constantFrom(...SPACES), fc.constantFrom(...SPACES)], { numRuns: runs(1000) })(
    `${cite('PARSE-08')} gives the same verdict with whitespace around the reply`,
    (text, before, after) => {
      fc.pre(before.length + text.length + after.length <= RAW_CAP);
      expect(parseReply(`${before}${text}${after}`)).toBe(parseReply(text));
      expect(parseReply(`${before}${text}`)).toBe(parseReply(text));
      expect(parseReply(`${text}${after}`)).toBe(parseReply(text));
    },
  );

  fcIt.prop([reply, fc.constantFrom(...STOPS)], { numRuns: runs(1000) })(
    `${cite('PARSE-09')} gives the same verdict with one trailing 。.!！ added to a reply that has none`,
    (text, stop) => {
      const end = text.normalize('NFKC').replace(/[\p{Cf}\s]+$/u, '');
      fc.pre(!/[。.!]$/u.test(end) && text.length < RAW_CAP);
      expect(parseReply(`${text}${stop}`)).toBe(parseReply(text));
    },
  );

  fcIt.prop(
    [
      fc.constantFrom(...ALL_WORDS),
      fc.constantFrom(...STOPS),
      fc.constantFrom(...STOPS, '?', '？', ',', '~', '」', '…'),
    ],
    {
      numRuns: runs(300),
    },
  )(
    `${cite('PARSE-09')} reads a word with a second mark, or any other mark, as unrecognised`,
    (word, first, second) => {
      expect(parseReply(`${word}${first}${second}`)).toBe('unrecognised');
      if (!STOPS.includes(second)) expect(parseReply(`${word}${second}`)).toBe('unrecognised');
    },
  );

  /** A further word: visible text that normalisation does not remove. */
  const further = fc.oneof(
    fc.constantFrom(
      ...ALL_WORDS,
      'please',
      '吧',
      '吗',
      '了',
      'ay',
      'not',
      '👍',
      '?',
      '1',
      'x',
      'allow',
      'firm',
    ),
    fc.string({ minLength: 1, maxLength: 8 }).filter((s) => /[\p{L}\p{N}\p{S}]/u.test(s)),
  );
  fcIt.prop([fc.constantFrom(...CONFIRM_WORDS), fc.constantFrom('', ' ', '，', ', '), further], {
    numRuns: runs(1000),
  })(
    `${cite('PARSE-10')} never keeps a confirm word a confirm with a further word appended, unless the result is a word`,
    (word, separator, extra) => {
      const text = `${word}${separator}${extra}`;
      const asWord = text
        .normalize('NFKC')
        .replace(/\p{Cf}/gu, '')
        .toLowerCase()
        .trim()
        .replace(/[。.!]$/u, '')
        .trim();
      if (parseReply(text) === 'confirm') expect(VOCABULARY.get(asWord), text).toBe('confirm');
    },
  );

  const compatible = fc.oneof(
    reply,
    fc
      .constantFrom(...ALL_WORDS)
      .map((w) =>
        [...w]
          .map((c) =>
            c >= '!' && c <= '~' ? String.fromCodePoint((c.codePointAt(0) as number) + 0xfee0) : c,
          )
          .join(''),
      ),
    fc.constantFrom('𝐲𝐞𝐬', 'ⓨⓔⓢ', 'ʸᵉˢ', '№', 'ſtop', 'O\u212a', '\uf967', 'ye\u0301s', 'ｷｬﾝｾﾙ', '㊀', 'ﷺ'),
  );
  fcIt.prop([compatible], { numRuns: runs(1000) })(
    `${cite('PARSE-11')} gives NFC, NFD, NFKC and NFKD forms of a reply the same verdict`,
    (text) => {
      const forms = (['NFC', 'NFD', 'NFKC', 'NFKD'] as const).map((f) => text.normalize(f));
      fc.pre(forms.every((f) => f.length <= RAW_CAP) && text.length <= RAW_CAP);
      for (const form of forms) expect(parseReply(form)).toBe(parseReply(text));
    },
  );

  fcIt.prop(
    [
      fc.constantFrom(...ALL_WORDS),
      fc.constantFrom(...FORMAT_CHARS, ' ', '\u3000'),
      fc.integer({ min: RAW_CAP + 1, max: 4 * RAW_CAP }),
      fc.nat(),
    ],
    { numRuns: runs(500) },
  )(
    `${cite('PARSE-12')} never confirms (or cancels) a reply longer than the raw cap`,
    (word, pad, length, at) => {
      // Without the cap, this text would normalise to the word itself.
      const padding = pad.repeat(Math.max(0, length - word.length));
      const cut = at % (padding.length + 1);
      const text = `${padding.slice(0, cut)}${word}${padding.slice(cut)}`;
      expect(text.length).toBeGreaterThan(RAW_CAP);
      expect(parseReply(text)).toBe('unrecognised');
    },
  );

  fcIt.prop([fc.string({ minLength: RAW_CAP + 1, maxLength: 600 })], { numRuns: runs(300) })(
    `${cite('PARSE-12')} never confirms arbitrary text longer than the raw cap`,
    (text) => {
      expect(parseReply(text)).toBe('unrecognised');
    },
  );

  /** Letters and a look-alike from another script (or a small capital) that NFKC does not fold. */
  const LOOK_ALIKES: Readonly<Record<string, readonly string[]>> = {
    a: ['а', 'ɑ', 'α'],
    c: ['с', 'ϲ', 'ᴄ'],
    e: ['е', 'ҽ', 'ᴇ'],
    f: ['ғ', 'ꜰ'],
    i: ['і', 'ɪ'], // not dotless ı: upper-cased it is a plain I
    k: ['κ', 'к', 'ᴋ'],
    m: ['м', 'ᴍ'],
    n: ['п', 'ո', 'ɴ'],
    o: ['о', 'ο', 'ᴏ', '0'],
    p: ['р', 'ρ', 'ᴘ'],
    r: ['г', 'ʀ'],
    s: ['ѕ', 'ꜱ'],
    v: ['ν', 'ᴠ'],
    y: ['у', 'ү', 'ʏ'],
  };
  const LATIN_CONFIRM = CONFIRM_WORDS.filter((w) => /^[a-z]+$/.test(w));
  fcIt.prop(
    [
      fc.constantFrom(...LATIN_CONFIRM),
      fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      fc.nat(),
      fc.boolean(),
    ],
    {
      numRuns: runs(1000),
    },
  )(
    `${cite('PARSE-06')} never confirms a confirm word with letters swapped for look-alikes`,
    (word, positions, pick, upper) => {
      const chars = [...word];
      let swapped = 0;
      for (const position of positions) {
        const i = position % chars.length;
        const options = LOOK_ALIKES[word[i] as string];
        if (options === undefined) continue;
        chars[i] = options[pick % options.length] as string;
        swapped++;
      }
      fc.pre(swapped > 0);
      const text = upper ? chars.join('').toUpperCase() : chars.join('');
      expect(parseReply(text)).not.toBe('confirm');
      expect(parseReply(text)).not.toBe('always');
    },
  );
});
