/**
 * A labelled corpus of chat replies to a confirmation prompt, in Chinese and English, with the
 * verdict a strict reader must give (rule 1: a closed vocabulary matched exactly after
 * normalisation; negations, questions, conditions, mixed answers and look-alike letters never
 * confirm). Labels are written by hand from the rule, never computed with the parser under test;
 * the systematic variants at the bottom derive their label from the word they decorate.
 *
 * Normalisation assumed by the labels: NFKC, Unicode format characters removed, whitespace
 * trimmed (runs collapsed), case folded, ONE trailing 。 . ! ！ removed, raw text capped at
 * 4 × MAX_REPLY_LENGTH (128) characters and normalised text at MAX_REPLY_LENGTH (32).
 */
import { DEFAULT_VOCABULARY_WORDS } from '@parley/confirm';

export type Verdict = 'confirm' | 'cancel' | 'always' | 'unrecognised';

export const CATEGORIES = [
  'plain',
  'punctuation',
  'negation',
  'qualifier',
  'question',
  'condition',
  'mixed',
  'look-alike',
  'nfkc',
  'zero-width',
  'full-width',
  'whitespace',
  'emoji',
  'mention',
  'very-long',
  'other-language',
  'noise',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface LabelledReply {
  readonly text: string;
  readonly expected: Verdict;
  readonly category: Category;
}

type Row = readonly [text: string, expected: Verdict];

const C = 'confirm';
const X = 'cancel';
const A = 'always';
const U = 'unrecognised';

const HAND: Readonly<Record<Category, readonly Row[]>> = {
  plain: [
    ['确认', C],
    ['確認', C],
    ['确定', C],
    ['確定', C],
    ['执行', C],
    ['執行', C],
    ['批准', C],
    ['同意', C],
    ['confirm', C],
    ['Confirm', C],
    ['CONFIRM', C],
    ['yes', C],
    ['Yes', C],
    ['YES', C],
    ['yEs', C],
    ['y', C],
    ['Y', C],
    ['ok', C],
    ['OK', C],
    ['Ok', C],
    ['okay', C],
    ['Okay', C],
    ['approve', C],
    ['APPROVE', C],
    ['取消', X],
    ['拒绝', X],
    ['拒絕', X],
    ['不', X],
    ['否', X],
    ['不要', X],
    ['算了', X],
    ['cancel', X],
    ['Cancel', X],
    ['no', X],
    ['No', X],
    ['NO', X],
    ['n', X],
    ['N', X],
    ['abort', X],
    ['stop', X],
    ['Stop', X],
    ['deny', X],
    ['reject', X],
    ['总是允许', A],
    ['總是允許', A],
    ['始终允许', A],
    ['always', A],
    ['Always allow', A],
  ],
  punctuation: [
    ['确认。', C],
    ['确认！', C],
    ['确认!', C],
    ['确认.', C],
    ['yes.', C],
    ['Yes!', C],
    ['OK.', C],
    ['取消。', X],
    ['No.', X],
    ['cancel!', X],
    ['yes !', C],
    ['确认 。', C],
    ['确认！！', U],
    ['yes!!', U],
    ['yes...', U],
    ['yes…', U],
    ['确认。。', U],
    ['!yes', U],
    ['。确认', U],
    ['(yes)', U],
    ['「确认」', U],
    ['“确认”', U],
    ["'yes'", U],
    ['"ok"', U],
    ['yes,', U],
    ['确认，', U],
    ['ok~', U],
    ['确认～', U],
    ['*yes*', U],
    ['yes;', U],
    ['-yes', U],
    ['yes:', U],
    ['。。。', U],
    ['!', U],
    ['.', U],
  ],
  negation: [
    ['不确认', U],
    ['不要执行', U],
    ['不同意', U],
    ['不批准', U],
    ['别执行', U],
    ['别确认', U],
    ['先别执行', U],
    ['未确认', U],
    ['无法确认', U],
    ['没确认', U],
    ['不是确认', U],
    ['不执行', U],
    ["don't confirm", U],
    ['do not confirm', U],
    ['not yes', U],
    ['not ok', U],
    ['never', U],
    ['no way', U],
    ['nope', U],
    ['nah', U],
    ["don't", U],
    ['i confirm nothing', U],
    ['not approved', U],
    ["it's not ok", U],
  ],
  qualifier: [
    ['yes please', U],
    ['ok sure', U],
    ['okay then', U],
    ['sure', U],
    ['yep', U],
    ['yeah', U],
    ['yess', U],
    ['yesss', U],
    ['ye', U],
    ['yup', U],
    ['maybe', U],
    ['probably', U],
    ['i guess yes', U],
    ['yes i guess', U],
    ['sort of', U],
    ['confirmed', U],
    ['approved', U],
    ['go ahead', U],
    ['lgtm', U],
    ['确认吧', U],
    ['确认一下', U],
    ['先确认', U],
    ['好的', U],
    ['好', U],
    ['行', U],
    ['可以', U],
    ['嗯', U],
    ['嗯嗯', U],
    ['确认确认', U],
    ['我确认', U],
    ['确认了', U],
    ['执行吧', U],
    ['yes yes', U],
    ['ok ok', U],
  ],
  question: [
    ['确认？', U],
    ['确认?', U],
    ['yes?', U],
    ['ok?', U],
    ['OK？', U],
    ['confirm?', U],
    ['确认吗', U],
    ['确认吗？', U],
    ['要确认吗', U],
    ['真的要执行吗？', U],
    ['are you sure?', U],
    ['should i confirm?', U],
    ['yes?!', U],
    ['确认?!', U],
    ['¿yes?', U],
    ['cancel?', U],
    ['取消？', U],
    ['no?', U],
    ['what?', U],
    ['？', U],
  ],
  condition: [
    ['如果没问题就确认', U],
    ['确认，如果备份好了', U],
    ['备份后确认', U],
    ['等我确认', U],
    ['确认后再说', U],
    ['只有备份了才执行', U],
    ['yes if it is safe', U],
    ['ok if backup exists', U],
    ['after backup, yes', U],
    ['yes, but not now', U],
    ['yes, later', U],
    ['confirm when ready', U],
    ['ok unless prod', U],
    ['wait', U],
  ],
  mixed: [
    ['确认取消', U],
    ['取消确认', U],
    ['yes no', U],
    ['no yes', U],
    ['yes/no', U],
    ['y/n', U],
    ['确认 取消', U],
    ['确认/取消', U],
    ['ok cancel', U],
    ['cancel confirm', U],
    ['confirm or cancel', U],
    ['执行不执行', U],
    ['是/否', U],
    ['yes确认no', U],
    ['确认 cancel', U],
    ['ok取消', U],
    ['确认？不', U],
    ['no, yes', U],
    ['确认 不', U],
    ['always cancel', U],
  ],
  'look-alike': [
    ['уеѕ', U], // Cyrillic у е ѕ
    ['yеs', U], // Cyrillic е
    ['уes', U], // Cyrillic у
    ['ок', U], // Cyrillic о к
    ['оk', U], // Cyrillic о
    ['οk', U], // Greek omicron
    ['ΟΚ', U], // Greek capitals
    ['ОК', U], // Cyrillic capitals
    ['cоnfirm', U],
    ['confіrm', U], // Cyrillic і
    ['соnfirm', U],
    ['аpprove', U], // Cyrillic а
    ['ʏᴇs', U], // small capitals
    ['ᴏᴋ', U],
    ['ɴo', U],
    ['ꜱtop', U],
    ['CONFİRM', U], // dotted capital I lowercases to i + combining dot
    ['yés', U],
    ['ye\u0301s', U],
    ['0k', U],
    ['y3s', U],
    ['碓认', U],
    ['确忍', U],
    ['確认', U], // traditional + simplified mixed
    ['取销', U],
    ['取渻', U],
    ['🅾🅺', U],
    ['🆗', U],
  ],
  nfkc: [
    ['𝐲𝐞𝐬', C], // mathematical bold
    ['𝓨𝓮𝓼', C],
    ['𝖔𝖐', C],
    ['ⓨⓔⓢ', C],
    ['ʸᵉˢ', C],
    ['ⁿᵒ', X],
    ['ſtop', X], // long s
    ['O\u212a', C], // O + Kelvin sign
    ['\uf967', X], // CJK compatibility ideograph for 不
    ['\u2116', X], // numero sign, NFKC "No"
  ],
  'zero-width': [
    ['确\u200b认', C],
    ['\u200byes', C],
    ['y\u200des', C],
    ['\ufeffok', C],
    ['取\u2060消', X],
    ['no\u200c', X],
    ['confirm\u00ad', C], // soft hyphen
    ['\u2066yes\u2069', C], // bidi isolates
    ['\u202eyes', C], // right-to-left override
    ['ye\u034fs', C], // combining grapheme joiner
    ['ok\ufe0f', C], // variation selector
    ['\ufeff确认！', C],
    ['co\u200bnfirm\u200bno', U],
    ['yes\u200b?', U],
    ['\u200b', U],
    ['\u200b\u200c\u200d', U],
  ],
  'full-width': [
    ['ＹＥＳ', C],
    ['ｙｅｓ', C],
    ['ＯＫ', C],
    ['ｏｋ', C],
    ['Ｙ', C],
    ['ｃａｎｃｅｌ', X],
    ['ＮＯ', X],
    ['确认．', C], // full-width full stop → .
    ['确认｡', C], // half-width ideographic full stop → 。
    ['ＹＥＳ！', C],
    ['ＹＥＳ？', U],
    ['ＣＯＮＦＩＲＭ', C],
    ['ＡＬＷＡＹＳ', A],
    ['ｷｬﾝｾﾙ', U], // half-width katakana "cancel"
  ],
  whitespace: [
    [' yes ', C],
    ['\tyes\n', C],
    ['yes\r\n', C],
    ['\u3000确认\u3000', C], // ideographic space
    ['yes\u00a0', C], // no-break space
    ['\u2003ok\u2002', C],
    ['always  allow', A],
    ['always\tallow', A],
    ['y e s', U],
    ['确 认', U],
    ['o k', U],
    ['', U],
    ['   ', U],
    ['\n\n', U],
  ],
  emoji: [
    ['👍', U],
    ['✅', U],
    ['✔️', U],
    ['☑', U],
    ['👌', U],
    ['👍🏻', U],
    ['❌', U],
    ['🙅', U],
    ['🚫', U],
    ['确认👍', U],
    ['确认 👍', U],
    ['yes 👍', U],
    ['ok👌', U],
    ['👍 yes', U],
    ['取消❌', U],
  ],
  mention: [
    ['@bot 确认', U],
    ['@Alice yes', U],
    ['确认 @bot', U],
    ['@所有人 确认', U],
    ['<at user_id="ou_1">bot</at> 确认', U],
    ['<at user_id="bot">确认</at> 取消', U],
    ['<@U123> yes', U],
    ['@bot', U],
  ],
  'very-long': [
    ['YES'.repeat(20), U],
    ['yes'.repeat(11), U],
    [`${'确认'}${' '.repeat(300)}x`, U],
    [`确认${' '.repeat(200)}`, U], // the raw cap cuts before trimming
    [`${'\u200b'.repeat(200)}yes`, U],
    [`y${'e'.repeat(100)}s`, U],
    ['please go ahead and confirm the deletion of every order', U],
    ['我已经仔细检查过了所有的数据备份都完成了可以确认执行这个删除操作', U],
    [`${'a'.repeat(40)} yes`, U],
    ['confirm'.repeat(5), U],
  ],
  'other-language': [
    ['はい', U],
    ['네', U],
    ['ja', U],
    ['oui', U],
    ['sí', U],
    ['да', U],
    ['是', U],
    ['是的', U],
    ['对', U],
    ['好吧', U],
  ],
  noise: [
    ['?', U],
    ['1', U],
    ['0', U],
    ['true', U],
    ['false', U],
    ['null', U],
    ['confirm\u0000', U],
    ['yes\u0007', U],
    ['/confirm', U],
    ['`yes`', U],
    ['<b>yes</b>', U],
    ['yesterday', U],
    ['okey dokey', U],
    ['stopwatch', U],
    ['nothing', U],
    ['\ud800', U], // a lone surrogate
  ],
};

/** Decorations whose label is the word's own: the normalisation removes exactly them. */
const NEUTRAL: readonly [Category, (word: string) => string][] = [
  ['zero-width', (w) => [...w].join('\u200b')],
  ['zero-width', (w) => `\u2060${w}\ufeff`],
  ['full-width', (w) => w.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))],
  ['whitespace', (w) => `  ${w.toUpperCase()}\n`],
  ['punctuation', (w) => `${w}！`],
];

/** Decorations that make any word something else. */
const SPOILING: readonly [Category, (word: string) => string][] = [
  ['question', (w) => `${w}?`],
  ['negation', (w) => (/[a-z]/.test(w) ? `not ${w}` : `不${w}`)],
  ['emoji', (w) => `${w}👍`],
  ['mention', (w) => `@bot ${w}`],
];

function variants(): LabelledReply[] {
  const out: LabelledReply[] = [];
  const lists = [
    [DEFAULT_VOCABULARY_WORDS.confirm, C],
    [DEFAULT_VOCABULARY_WORDS.cancel, X],
  ] as const;
  for (const [words, expected] of lists) {
    for (const word of words) {
      for (const [category, decorate] of NEUTRAL) out.push({ text: decorate(word), expected, category });
      for (const [category, decorate] of SPOILING) {
        const text = decorate(word);
        // 不 + a cancel word can itself be a word (不 + 要 = 不要); nothing here builds one.
        out.push({ text, expected: U, category });
      }
    }
  }
  return out;
}

/** The whole corpus: the hand-written rows, then the systematic variants of every word. */
export const REPLY_CORPUS: readonly LabelledReply[] = [
  ...Object.entries(HAND).flatMap(([category, rows]) =>
    rows.map(([text, expected]) => ({ text, expected, category: category as Category })),
  ),
  ...variants(),
];
