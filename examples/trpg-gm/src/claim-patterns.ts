// The HP and move phrases of spec §7.1's first two examples, in English and Chinese: what the
// hp_claim and move_claim detectors (src/hp-claim.ts, src/move-claim.ts) look for. @parley/conflict's
// findClaims does the matching (overlaps once, negated or conditional clauses skipped); this file
// holds only the vocabulary of this game.
import type { ClaimPattern } from '@parley/conflict';

/**
 * A phrase that claims an HP change. Named groups: `amount` (digits or Chinese numerals) and
 * `sign` (`+` / `-`, which overrides `direction`).
 */
export interface HpClaimPattern extends ClaimPattern {
  /** Whether the text says HP goes down or up; neither when the phrase does not say. */
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
 * import { DEFAULT_HP_CLAIM_PATTERNS } from './claim-patterns.js';
 *
 * const patterns = [...DEFAULT_HP_CLAIM_PATTERNS, { pattern: /\bbleeds? for (?<amount>\d+)\b/i, direction: 'loss' as const }];
 * console.log(patterns.length > DEFAULT_HP_CLAIM_PATTERNS.length); // true
 * ```
 */
export const DEFAULT_HP_CLAIM_PATTERNS: readonly HpClaimPattern[] = Object.freeze([
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
 * import { DEFAULT_MOVE_CLAIM_PATTERNS } from './claim-patterns.js';
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
