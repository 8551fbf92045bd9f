import { clip } from '../internal/checks.js';

/**
 * One pattern a narrative detector looks for. Named groups carry the details: `amount` (digits or
 * Chinese numerals) and `sign` (`+` / `-`) for HP claims, `area` for move claims.
 *
 * @example
 * ```ts
 * import type { ClaimPattern } from '@parley/conflict';
 *
 * const bleeds: ClaimPattern = { pattern: /\bbleeds? for (?<amount>\d+)\b/i, direction: 'loss' };
 * ```
 */
export interface ClaimPattern {
  readonly pattern: RegExp;
  /** For HP claims: whether the text says HP goes down or up (a `sign` group overrides it). */
  readonly direction?: 'loss' | 'gain' | undefined;
}

const NUM = String.raw`(?<amount>\d+|[零〇一二两兩三四五六七八九十百]+)`;

/**
 * The HP-change phrases {@link defineHpClaimDetector} looks for by default, in English and
 * Chinese: "loses 5 HP", "takes 5 damage", "HP -5", "HP drops", "regains 3 HP", "受到5点伤害",
 * "失去五点生命", "生命值减少", "HP 减少 5", "恢复3点生命值", "掉了5点血". Extend or replace it.
 *
 * @example
 * ```ts
 * import { DEFAULT_HP_CLAIM_PATTERNS } from '@parley/conflict';
 *
 * const patterns = [...DEFAULT_HP_CLAIM_PATTERNS, { pattern: /\bbleeds? for (?<amount>\d+)\b/i, direction: 'loss' as const }];
 * console.log(patterns.length > DEFAULT_HP_CLAIM_PATTERNS.length); // true
 * ```
 */
export const DEFAULT_HP_CLAIM_PATTERNS: readonly ClaimPattern[] = Object.freeze([
  {
    pattern:
      /\b(?:lose|loses|lost|losing|take|takes|took|taking|suffer|suffers|suffered)\s+(?<amount>\d+)\s*(?:points?\s+of\s+)?(?:hp|hit\s*points?|health|damage)\b/i,
    direction: 'loss',
  },
  {
    pattern:
      /\b(?:gain|gains|gained|regain|regains|regained|recover|recovers|recovered|heal|heals|healed|restore|restores|restored)\s+(?:for\s+)?(?<amount>\d+)\s*(?:points?\s+of\s+)?(?:hp|hit\s*points?|health)\b/i,
    direction: 'gain',
  },
  { pattern: /\b(?:hp|health)\s*(?<sign>[-+−])\s*(?<amount>\d+)\b/i },
  {
    pattern:
      /\b(?:hp|health|hit\s*points)\s+(?:drops?|dropped|falls?|fell|decreases?|decreased|is\s+reduced|goes\s+down|went\s+down)\b/i,
    direction: 'loss',
  },
  {
    pattern:
      /\b(?:hp|health|hit\s*points)\s+(?:rises?|rose|increases?|increased|is\s+restored|goes\s+up|went\s+up)\b/i,
    direction: 'gain',
  },
  {
    pattern: new RegExp(
      String.raw`(?:受到|承受|遭受|损失|損失|失去|造成)了?\s*${NUM}\s*点?點?的?\s*(?:伤害|傷害|生命值?|血量?|hp|HP)`,
      'u',
    ),
    direction: 'loss',
  },
  {
    pattern: new RegExp(
      String.raw`(?:生命值?|血量|hp|HP)\s*(?:减少|減少|降低|下降|扣除|扣了|减|減|掉了|掉|-|−)了?\s*(?:${NUM}\s*点?點?)?`,
      'u',
    ),
    direction: 'loss',
  },
  { pattern: new RegExp(String.raw`掉了?\s*(?:${NUM}\s*点?點?)?\s*血`, 'u'), direction: 'loss' },
  {
    pattern: new RegExp(
      String.raw`(?:恢复|恢復|回复|回復|治疗|治療)了?\s*${NUM}\s*点?點?的?\s*(?:生命值?|血量?|hp|HP)`,
      'u',
    ),
    direction: 'gain',
  },
  {
    pattern: new RegExp(
      String.raw`(?:生命值?|血量|hp|HP)\s*(?:增加|提升|恢复|恢復|回复|回復|上升|\+)了?\s*(?:${NUM}\s*点?點?)?`,
      'u',
    ),
    direction: 'gain',
  },
]);

/**
 * The movement phrases {@link defineMoveClaimDetector} looks for by default, in English and
 * Chinese: "moves to the tavern", "walks into the cellar", "enters the tavern", "arrives at the
 * gate", "来到酒馆", "前往…", "走进…", "进入…", "抵达…". The `area` group holds the rest of the
 * clause (up to 40 characters), which a resolver matches to an area id.
 *
 * @example
 * ```ts
 * import { DEFAULT_MOVE_CLAIM_PATTERNS } from '@parley/conflict';
 *
 * console.log(DEFAULT_MOVE_CLAIM_PATTERNS.some(({ pattern }) => pattern.test('你们来到酒馆'))); // true
 * ```
 */
export const DEFAULT_MOVE_CLAIM_PATTERNS: readonly ClaimPattern[] = Object.freeze([
  {
    pattern:
      /\b(?:move|moves|moved|walk|walks|walked|go|goes|went|head|heads|headed|travel|travels|traveled|travelled|run|runs|ran|step|steps|stepped|return|returns|returned|climb|climbs|climbed)\s+(?:back\s+|over\s+|down\s+|up\s+|out\s+)?(?:in)?to\s+(?:the\s+)?(?<area>[^.,!?;:\n]{1,40})/i,
  },
  {
    pattern:
      /\b(?:enter|enters|entered|reach|reaches|reached|(?:arrive|arrives|arrived)\s+(?:at|in))\s+(?:the\s+)?(?<area>[^.,!?;:\n]{1,40})/i,
  },
  {
    pattern:
      /(?:来到|來到|前往|走进|走進|进入|進入|抵达|抵達|到达|到達|移动到|移動到|走到|回到|赶到|趕到|跑到)了?(?<area>[^，。！？；：、,.!?;:\s]{1,20})/u,
  },
]);

/**
 * Words that, earlier in the same clause, turn a match into something other than a claim of fact:
 * negations ("cannot", "无法"), conditions ("if", "如果") and intentions ("tries to", "打算").
 * Narrative detectors skip such matches by default; pass `guard: null` to turn this off.
 *
 * @example
 * ```ts
 * import { DEFAULT_CLAIM_GUARD } from '@parley/conflict';
 *
 * console.log(DEFAULT_CLAIM_GUARD.test('You cannot '), DEFAULT_CLAIM_GUARD.test('You ')); // true false
 * ```
 */
export const DEFAULT_CLAIM_GUARD: RegExp =
  /(?:\b(?:not|never|cannot|can't|can\s+not|couldn't|don't|doesn't|didn't|won't|wouldn't|unable|fails?\s+to|failed\s+to|if|unless|would|could|might|may|should|try|tries|tried|trying|wants?|plans?|about\s+to)\b|没有|沒有|没|沒|无法|無法|不能|不可|未能|别|別|如果|假如|若|要是|打算|想要|试图|試圖|准备|準備)/i;

/** One claim found in a text. */
export interface Claim {
  readonly text: string;
  readonly direction: 'loss' | 'gain' | undefined;
  readonly amount: number | undefined;
  readonly area: string | undefined;
  /** Every named group of the match (trimmed), for detectors with groups of their own. */
  readonly groups: Readonly<Record<string, string | undefined>>;
  /** The index of the pattern that matched. */
  readonly pattern: number;
}

/** The characters that end a clause for the guard. */
const CLAUSE_MARKS = new Set(['.', '!', '?', ';', '\n', '。', '！', '？', '；']);

/** Claim texts longer than this are cut in evidence and reasons (a run of digits can be any length). */
const MAX_CLAIM_TEXT = 120;

/**
 * Finds every claim in `text`; overlapping matches count once (the earlier pattern wins). A match
 * is skipped when the guard matches in its clause before it. Linear in the text: each pattern
 * scans it once, overlaps are checked against a per-character mark, and the guard is searched
 * once per clause.
 */
export function findClaims(
  text: string,
  patterns: readonly ClaimPattern[],
  guard: RegExp | null,
): readonly Claim[] {
  const taken = new Uint8Array(text.length);
  const clauses = guard === null ? undefined : clauseIndex(text, guard);
  const found: { readonly start: number; readonly claim: Claim }[] = [];
  for (const [index, { pattern, direction }] of patterns.entries()) {
    const global = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + 'g');
    for (const match of text.matchAll(global)) {
      const start = match.index;
      const end = start + match[0].length;
      if (match[0] === '' || isTaken(taken, start, end)) continue;
      if (clauses?.guarded(start)) continue;
      taken.fill(1, start, end);
      const groups = match.groups ?? {};
      const sign = groups['sign'];
      found.push({
        start,
        claim: {
          text: clip(match[0].trim(), MAX_CLAIM_TEXT),
          direction: sign === undefined ? direction : sign === '+' ? 'gain' : 'loss',
          amount: parseAmount(groups['amount']),
          area: groups['area']?.trim(),
          groups: Object.fromEntries(Object.entries(groups).map(([key, value]) => [key, value?.trim()])),
          pattern: index,
        },
      });
    }
  }
  return found.map((entry) => entry.claim);
}

function isTaken(taken: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (taken[i] === 1) return true;
  return false;
}

/**
 * For each clause (the text after the last clause mark), where the guard's first match in it
 * ends, found with one search of the whole clause: a match starting at or after that end is
 * guarded. (Searching the clause up to each match instead costs the square of its length.)
 */
function clauseIndex(text: string, guard: RegExp): { guarded(start: number): boolean } {
  const starts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (CLAUSE_MARKS.has(text[i]!)) starts.push(i + 1);
  const ends = new Map<number, number>();
  return {
    guarded(start) {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if (starts[mid]! <= start) low = mid;
        else high = mid - 1;
      }
      let end = ends.get(low);
      if (end === undefined) {
        const from = starts[low]!;
        const to = low + 1 < starts.length ? starts[low + 1]! - 1 : text.length;
        const clause = text.slice(from, to);
        guard.lastIndex = 0; // a global or sticky guard would otherwise resume mid-string
        const match = guard.exec(clause);
        end = match === null ? Number.POSITIVE_INFINITY : from + match.index + match[0].length;
        ends.set(low, end);
      }
      return end <= start;
    },
  };
}

const DIGITS: Readonly<Record<string, number>> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  兩: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** Reads "5", "五", "十二", "二十五", "一百零五". */
export function parseAmount(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  let total = 0;
  let current = 0;
  for (const char of text) {
    if (char === '十' || char === '百') {
      total += (current === 0 ? 1 : current) * (char === '十' ? 10 : 100);
      current = 0;
    } else current = DIGITS[char] ?? 0;
  }
  return total + current;
}
