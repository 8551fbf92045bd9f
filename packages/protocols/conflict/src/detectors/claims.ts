import { clip } from '../internal/checks.js';

/**
 * One phrase a narrative detector looks for. Its named groups carry the details the detector reads
 * from a {@link Claim}'s `groups` (an amount, a place, a name).
 *
 * @example
 * ```ts
 * import type { ClaimPattern } from '@parley/conflict';
 *
 * const ships: ClaimPattern = { pattern: /\bships? (?<amount>\d+) crates?\b/i };
 * ```
 */
export interface ClaimPattern {
  /** The phrase; its named groups become the claim's `groups` (`g` and `y` flags are ignored). */
  readonly pattern: RegExp;
}

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

/**
 * One claim {@link findClaims} found: the matched text and the pattern's named groups.
 *
 * @example
 * ```ts
 * import type { Claim } from '@parley/conflict';
 *
 * const claim: Claim = { text: 'ships 5 crates', groups: { amount: '5' }, pattern: 0 };
 * ```
 */
export interface Claim {
  /** The matched text, trimmed (cut to 120 characters). */
  readonly text: string;
  /** Every named group of the match, trimmed; a group that did not take part is `undefined`. */
  readonly groups: Readonly<Record<string, string | undefined>>;
  /** The index in `patterns` of the pattern that matched. */
  readonly pattern: number;
}

/** The characters that end a clause for the guard. */
const CLAUSE_MARKS = new Set(['.', '!', '?', ';', '\n', '。', '！', '？', '；']);

/** Claim texts longer than this are cut in evidence and reasons (a run of digits can be any length). */
const MAX_CLAIM_TEXT = 120;

/**
 * Finds every claim of fact in a text: each match of the patterns (overlapping matches count once,
 * the earlier pattern wins), except those whose clause so far matches the guard ("You cannot
 * enter", "If you pay"). Claims come pattern by pattern, each in text order.
 *
 * Use it inside {@link defineDetector} for a narrative rule of your domain: find the claims, then
 * check each against the state or the turn's `effects` (the tool calls that settle it). Linear in
 * the text: each pattern scans it once, overlaps are checked against a per-character mark, and
 * the guard is searched once per clause.
 *
 * @param guard Skips a match when its clause so far matches this; {@link DEFAULT_CLAIM_GUARD} by
 * default, `null` for none.
 * @example
 * ```ts
 * import { findClaims } from '@parley/conflict';
 *
 * const patterns = [{ pattern: /\bships? (?<amount>\d+) crates?\b/i }];
 * const claims = findClaims('We ship 5 crates. We cannot ship 9 crates.', patterns);
 * console.log(claims.map((claim) => claim.groups['amount'])); // [ '5' ]
 * ```
 */
export function findClaims(
  text: string,
  patterns: readonly ClaimPattern[],
  guard: RegExp | null = DEFAULT_CLAIM_GUARD,
): readonly Claim[] {
  const taken = new Uint8Array(text.length);
  const clauses = guard === null ? undefined : clauseIndex(text, guard);
  const found: { readonly start: number; readonly claim: Claim }[] = [];
  for (const [index, { pattern }] of patterns.entries()) {
    const global = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + 'g');
    for (const match of text.matchAll(global)) {
      const start = match.index;
      const end = start + match[0].length;
      if (match[0] === '' || isTaken(taken, start, end)) continue;
      if (clauses?.guarded(start)) continue;
      taken.fill(1, start, end);
      const groups = match.groups ?? {};
      found.push({
        start,
        claim: {
          text: clip(match[0].trim(), MAX_CLAIM_TEXT),
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
