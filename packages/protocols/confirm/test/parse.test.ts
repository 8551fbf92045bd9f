import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VOCABULARY_WORDS,
  defineVocabulary,
  MAX_REPLY_LENGTH,
  normalizeExact,
  normalizeReply,
  parseReply,
} from '../src/index.js';

const MUST_NOT_CONFIRM: readonly string[] = [
  'yes please don’t',
  "yes please don't",
  '确认取消',
  '取消确认',
  'maybe',
  'nope',
  '👍',
  '✅',
  '✔️',
  'уеѕ', // Cyrillic look-alikes
  'yеs', // Cyrillic е inside Latin
  'ок', // Cyrillic о and к
  'οk', // Greek omicron
  'cоnfirm', // Cyrillic о
  '确认吗',
  '确认？不',
  '确 认 取 消',
  '不确认',
  '别确认',
  '确认一下再说',
  '先别执行',
  'yes no',
  'no yes',
  'yes, but not now',
  'yesterday',
  'yess',
  'ye',
  'okey dokey',
  'confirmed?? no',
  'i confirm nothing',
  'do not confirm',
  "don't",
  'y e s',
  'yes确认no',
  '确认 cancel',
  'ok取消',
  'sure',
  'go ahead',
  'lgtm',
  '',
  '   ',
  '。。。',
  '?',
  '1',
  'true',
  'YES'.repeat(20),
  `${'确认'}${' '.repeat(300)}x`,
  'confirm\u0000',
  'co\u200bnfirm\u200bno',
  '<at user_id="bot">确认</at> 取消',
  '@bot 确认',
  '确认 👍',
  // questions and decorated answers: only one closing 。 . ! ！ is removed
  '确认？',
  '确认?',
  'yes?',
  'OK？',
  'yes?!',
  '¿yes?',
  '确认！！',
  'yes...',
  '「确认」',
  '(yes)',
  '/confirm',
];

describe('parseReply', () => {
  it('holds at least 40 replies that must not confirm', () => {
    expect(MUST_NOT_CONFIRM.length).toBeGreaterThanOrEqual(40);
  });

  it.each(MUST_NOT_CONFIRM)('does not read %j as a confirmation', (reply) => {
    expect(parseReply(reply)).not.toBe('confirm');
    expect(parseReply(reply)).not.toBe('always');
  });

  it.each([
    ['确认', 'confirm'],
    ['確認', 'confirm'],
    [' 确认。', 'confirm'],
    ['确\u200b认', 'confirm'],
    ['\ufeff确认！', 'confirm'],
    ['ＹＥＳ', 'confirm'],
    ['Yes!', 'confirm'],
    ['OK', 'confirm'],
    ['ＹＥＳ！', 'confirm'],
    ['yes !', 'confirm'],
    ['确认｡', 'confirm'],
    ['取消', 'cancel'],
    ['No.', 'cancel'],
    ['ＣＡＮＣＥＬ', 'cancel'],
    ['不', 'cancel'],
    ['Always  allow', 'always'],
    ['总是允许', 'always'],
    ['maybe', 'unrecognised'],
    ['取消？', 'unrecognised'],
    ['no!!', 'unrecognised'],
  ] as const)('reads %j as %s', (reply, verdict) => {
    expect(parseReply(reply)).toBe(verdict);
  });

  it('treats a non-string as unrecognised', () => {
    expect(parseReply(42 as unknown as string)).toBe('unrecognised');
  });

  it('uses a replaced vocabulary instead of the defaults', () => {
    const vocabulary = defineVocabulary({ confirm: ['ja'], cancel: ['nein'] });
    expect(parseReply('JA', vocabulary)).toBe('confirm');
    expect(parseReply('确认', vocabulary)).toBe('unrecognised');
    expect(parseReply('always', vocabulary)).toBe('unrecognised');
  });
});

describe('normalizeReply / normalizeExact', () => {
  it('folds width, case, format characters, whitespace and one closing full stop or exclamation mark', () => {
    expect(normalizeReply('  ＡＬＷＡＹＳ\u200d   Ａllow！ ')).toBe('always allow');
    expect(normalizeReply('  ＡＬＷＡＹＳ\u200d   Ａllow！！ ')).toBe('always allow!');
    expect(normalizeReply('「确认」？')).toBe('「确认」?');
  });

  it('caps very long input before normalising', () => {
    expect(normalizeReply('a'.repeat(10_000)).length).toBe(MAX_REPLY_LENGTH * 4 + 1);
    expect(normalizeExact('A'.repeat(10_000)).length).toBe(MAX_REPLY_LENGTH * 4 + 1);
  });

  it('keeps case and punctuation for exact answers', () => {
    expect(normalizeExact(' ＹＥＳ ')).toBe('YES');
    expect(normalizeExact('yes!')).toBe('yes!');
  });
});

describe('defineVocabulary', () => {
  it.each([
    ['a word in two lists', { confirm: ['ok'], cancel: ['OK!'] }],
    ['an empty word', { confirm: ['。'], cancel: [] }],
    ['a too long word', { confirm: ['x'.repeat(MAX_REPLY_LENGTH + 1)], cancel: [] }],
    ['a non-string word', { confirm: [5 as unknown as string], cancel: [] }],
  ])('refuses %s with invalid_vocabulary', (_, words) => {
    expect(() => defineVocabulary(words)).toThrow(expect.objectContaining({ code: 'invalid_vocabulary' }));
  });

  it('accepts the default words and a repeated word in one list', () => {
    expect(defineVocabulary({ ...DEFAULT_VOCABULARY_WORDS, confirm: ['ok', 'OK'] }).confirm.size).toBe(1);
  });
});
