import { ConfirmError } from './errors.js';

/**
 * What a reply means: `confirm`, `cancel`, `always` (confirm, and allow this action kind in this
 * session for a while), or `unrecognised`.
 *
 * @example
 * ```ts
 * import { REPLY_VERDICTS } from '@parley/confirm';
 *
 * console.log(REPLY_VERDICTS); // [ 'confirm', 'cancel', 'always', 'unrecognised' ]
 * ```
 */
export const REPLY_VERDICTS = ['confirm', 'cancel', 'always', 'unrecognised'] as const;

/**
 * One of {@link REPLY_VERDICTS}.
 *
 * @example
 * ```ts
 * import type { ReplyVerdict } from '@parley/confirm';
 *
 * const verdict: ReplyVerdict = 'unrecognised';
 * ```
 */
export type ReplyVerdict = (typeof REPLY_VERDICTS)[number];

const FORMAT_CHARS = /\p{Cf}|\p{Variation_Selector}|[\u034f\u115f\u1160\u3164\uffa0]/gu;
const WHITESPACE_RUN = /\s+/gu;
/** One closing full stop or exclamation mark (after NFKC, ！ is ! and ． is .; ｡ is 。). */
const TRAILING_STOP = /[。.!]$/u;

/**
 * The longest reply, after normalisation, that can be recognised; longer ones are `unrecognised`.
 *
 * @example
 * ```ts
 * import { MAX_REPLY_LENGTH } from '@parley/confirm';
 *
 * console.log(MAX_REPLY_LENGTH); // 32
 * ```
 */
export const MAX_REPLY_LENGTH = 32;

/**
 * The words a reply is matched against, whole, after {@link normalizeReply}. Build one with
 * {@link defineVocabulary}.
 *
 * @example
 * ```ts
 * import { DEFAULT_VOCABULARY, type Vocabulary } from '@parley/confirm';
 *
 * const vocabulary: Vocabulary = DEFAULT_VOCABULARY;
 * console.log(vocabulary.confirm.has('确认')); // true
 * ```
 */
export interface Vocabulary {
  readonly confirm: ReadonlySet<string>;
  readonly cancel: ReadonlySet<string>;
  readonly always: ReadonlySet<string>;
}

/**
 * The words of a vocabulary before normalisation, for {@link defineVocabulary}.
 *
 * @example
 * ```ts
 * import type { VocabularyWords } from '@parley/confirm';
 *
 * const words: VocabularyWords = { confirm: ['ja'], cancel: ['nein'] };
 * ```
 */
export interface VocabularyWords {
  readonly confirm: readonly string[];
  readonly cancel: readonly string[];
  readonly always?: readonly string[];
}

/**
 * Normalises a chat reply before matching: Unicode NFKC (full-width to half-width and other
 * compatibility forms), zero-width and other format characters removed, lower case, runs of
 * whitespace collapsed, surrounding whitespace trimmed, and one closing 。 . ! ！ removed. Any other
 * punctuation stays — a question mark, a second full stop, quotes or brackets — as do symbols and
 * emoji, so "yes?" or "「确认」" never vanish into a match. Text longer than 4 × {@link MAX_REPLY_LENGTH} is cut first and
 * marked with U+FFFD, so a cut reply never matches a word.
 *
 * Use it to compare replies the way the gate does, e.g. in logs.
 *
 * @example
 * ```ts
 * import { normalizeReply } from '@parley/confirm';
 *
 * console.log(normalizeReply('  ＹＥＳ！ ')); // yes
 * console.log(normalizeReply('确\u200b认。')); // 确认
 * ```
 */
export function normalizeReply(text: string): string {
  const capped = text.length > MAX_REPLY_LENGTH * 4 ? `${text.slice(0, MAX_REPLY_LENGTH * 4)}\ufffd` : text;
  return capped
    .normalize('NFKC')
    .replace(FORMAT_CHARS, '')
    .toLowerCase()
    .replace(WHITESPACE_RUN, ' ')
    .trim()
    .replace(TRAILING_STOP, '')
    .trimEnd();
}

/**
 * Normalises for an exact step answer: NFKC, format characters removed, whitespace trimmed; case
 * and punctuation are kept, so `YES` matches only `YES`.
 *
 * @example
 * ```ts
 * import { normalizeExact } from '@parley/confirm';
 *
 * console.log(normalizeExact(' ＹＥＳ\u200d ')); // YES
 * ```
 */
export function normalizeExact(text: string): string {
  const capped = text.length > MAX_REPLY_LENGTH * 4 ? `${text.slice(0, MAX_REPLY_LENGTH * 4)}\ufffd` : text;
  return capped.normalize('NFKC').replace(FORMAT_CHARS, '').trim();
}

/**
 * Builds a {@link Vocabulary} from lists of words, normalising each one.
 *
 * Use it to replace or extend the defaults (spread `DEFAULT_VOCABULARY_WORDS`).
 *
 * @throws ConfirmError `invalid_vocabulary` when a word is empty after normalisation, too long, or
 * appears in two lists.
 * @example
 * ```ts
 * import { DEFAULT_VOCABULARY_WORDS, defineVocabulary, parseReply } from '@parley/confirm';
 *
 * const vocabulary = defineVocabulary({
 *   ...DEFAULT_VOCABULARY_WORDS,
 *   confirm: [...DEFAULT_VOCABULARY_WORDS.confirm, 'ja'],
 * });
 * console.log(parseReply('Ja!', vocabulary)); // confirm
 * ```
 */
export function defineVocabulary(words: VocabularyWords): Vocabulary {
  const seen = new Map<string, string>();
  const build = (list: readonly string[] | undefined, kind: string): ReadonlySet<string> => {
    const set = new Set<string>();
    for (const word of list ?? []) {
      const normal = typeof word === 'string' ? normalizeReply(word) : '';
      if (normal === '' || normal.length > MAX_REPLY_LENGTH) {
        throw new ConfirmError('invalid_vocabulary', `Unusable ${kind} word ${JSON.stringify(word)}`, {
          details: { kind, word: String(word) },
        });
      }
      const other = seen.get(normal);
      if (other !== undefined && other !== kind) {
        throw new ConfirmError('invalid_vocabulary', `"${normal}" is both a ${other} and a ${kind} word`, {
          details: { word: normal, kinds: [other, kind] },
        });
      }
      seen.set(normal, kind);
      set.add(normal);
    }
    return set;
  };
  return Object.freeze({
    confirm: build(words.confirm, 'confirm'),
    cancel: build(words.cancel, 'cancel'),
    always: build(words.always, 'always'),
  });
}

/**
 * The default words, Chinese (simplified and traditional) and English.
 *
 * @example
 * ```ts
 * import { DEFAULT_VOCABULARY_WORDS } from '@parley/confirm';
 *
 * console.log(DEFAULT_VOCABULARY_WORDS.cancel.includes('取消')); // true
 * ```
 */
export const DEFAULT_VOCABULARY_WORDS = {
  confirm: [
    '确认',
    '確認',
    '确定',
    '確定',
    '执行',
    '執行',
    '批准',
    '同意',
    'confirm',
    'yes',
    'y',
    'ok',
    'okay',
    'approve',
  ],
  cancel: [
    '取消',
    '拒绝',
    '拒絕',
    '不',
    '否',
    '不要',
    '算了',
    'cancel',
    'no',
    'n',
    'abort',
    'stop',
    'deny',
    'reject',
  ],
  always: ['总是允许', '總是允許', '始终允许', '始終允許', 'always', 'always allow'],
} as const satisfies VocabularyWords;

/**
 * The vocabulary the gate uses unless told otherwise, built from {@link DEFAULT_VOCABULARY_WORDS}.
 *
 * @example
 * ```ts
 * import { DEFAULT_VOCABULARY } from '@parley/confirm';
 *
 * console.log(DEFAULT_VOCABULARY.cancel.has('cancel')); // true
 * ```
 */
export const DEFAULT_VOCABULARY: Vocabulary = /* @__PURE__ */ defineVocabulary(DEFAULT_VOCABULARY_WORDS);

/**
 * Reads a reply strictly: the whole normalised reply must be one word of a vocabulary list, never
 * a substring. "yes please don't", "确认取消", "maybe", an emoji or look-alike letters from
 * another script ("уеѕ") are all `unrecognised`.
 *
 * Use it on its own to test a vocabulary; the gate applies it to every reply.
 *
 * @example
 * ```ts
 * import { parseReply } from '@parley/confirm';
 *
 * console.log(parseReply('确认')); // confirm
 * console.log(parseReply(' Cancel. ')); // cancel
 * console.log(parseReply('确认取消')); // unrecognised
 * console.log(parseReply('уеѕ')); // unrecognised
 * ```
 */
export function parseReply(text: string, vocabulary: Vocabulary = DEFAULT_VOCABULARY): ReplyVerdict {
  if (typeof text !== 'string') return 'unrecognised';
  return verdictOf(normalizeReply(text), vocabulary);
}

/**
 * The verdict of a reply already normalised with {@link normalizeReply} (what `parseReply` decides
 * after normalising): the gate normalises each reply once.
 *
 * @internal
 */
export function verdictOf(normal: string, vocabulary: Vocabulary): ReplyVerdict {
  if (normal.length === 0 || normal.length > MAX_REPLY_LENGTH) return 'unrecognised';
  if (vocabulary.confirm.has(normal)) return 'confirm';
  if (vocabulary.cancel.has(normal)) return 'cancel';
  if (vocabulary.always.has(normal)) return 'always';
  return 'unrecognised';
}
