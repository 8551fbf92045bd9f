// Spec §7.1, first example: the narrative claims an HP change that no hp_delta call settles. Built
// on @parley/conflict's generic pieces (defineDetector, findClaims, the turn's `effects`); the
// phrases are in src/claim-patterns.ts.
import {
  type AppliedAction,
  type Claim as FoundClaim,
  DEFAULT_CLAIM_GUARD,
  type Detector,
  defineDetector,
  findClaims,
} from '@parley/conflict';
import { DEFAULT_HP_CLAIM_PATTERNS, type HpClaimPattern, parseAmount } from './claim-patterns.js';

/**
 * Options for {@link defineHpClaimDetector}.
 *
 * @example
 * ```ts
 * import type { HpClaimDetectorOptions } from './hp-claim.js';
 *
 * const options: HpClaimDetectorOptions<{ hp: Record<string, number> }> = {
 *   tool: 'hp_delta',
 *   snippet: (state) => ({ hp: state.hp }),
 * };
 * ```
 */
export interface HpClaimDetectorOptions<TState> {
  /** Reported as `detector`; `hp_claim` by default. */
  readonly name?: string;
  /** The phrases that count as an HP claim; {@link DEFAULT_HP_CLAIM_PATTERNS} by default. */
  readonly patterns?: readonly HpClaimPattern[];
  /** Skips a match when its clause so far matches this; {@link DEFAULT_CLAIM_GUARD} by default, `null` for none. */
  readonly guard?: RegExp | null;
  /** The tool that settles HP; `hp_delta` by default. */
  readonly tool?: string;
  /** Reads the signed change from a call's args; `args.delta` by default. */
  readonly deltaOf?: (args: Readonly<Record<string, unknown>>) => number | undefined;
  /** The `expected_state_snippet` (the authoritative HP fields); by default the rule and the matching calls. */
  readonly snippet?: (state: TState, claim: string) => unknown;
  /** The retry instruction; an English sentence naming the tool by default. */
  readonly instructions?: string;
}

/**
 * Defines the detector for spec §7.1's first example: the narrative claims an HP change that no
 * `hp_delta` call settles. A claim with an amount ("loses 5 HP", "受到5点伤害")
 * needs a call whose delta has that size and sign; a claim without one ("生命值减少") needs a call
 * of that sign. Calls executed in an earlier attempt of the run count too.
 *
 * Use it in the conflict loop of a game turn. It is pattern based: it finds the phrases in
 * `patterns` (English and Chinese defaults), skips those negated or conditional in their clause,
 * and does not tie a claim to a character. Replace or extend the patterns for your writing style.
 *
 * @throws ConflictError `invalid_argument` (from `defineDetector`) when `name` is empty.
 * @example
 * ```ts
 * import { defineHpClaimDetector } from './hp-claim.js';
 *
 * const hp = defineHpClaimDetector();
 * const context = { attempt: 1, applied: [] };
 * const bad = await hp.detect({ text: '哥布林的箭射中了你，你受到5点伤害。' }, {}, context);
 * const good = await hp.detect(
 *   { text: 'You lose 5 HP.', tool_calls: [{ id: 'c1', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -5, cause: 'arrow' } }] },
 *   {},
 *   context,
 * );
 * console.log(bad.length, good.length); // 1 0
 * ```
 */
export function defineHpClaimDetector<TState = unknown>(
  options: HpClaimDetectorOptions<TState> = {},
): Detector<TState> {
  const patterns = options.patterns ?? DEFAULT_HP_CLAIM_PATTERNS;
  const guard = options.guard === undefined ? DEFAULT_CLAIM_GUARD : options.guard;
  const tool = options.tool ?? 'hp_delta';
  const deltaOf = options.deltaOf ?? defaultDelta;
  const instructions =
    options.instructions ??
    `Do not change HP in the narrative: request a ${tool} tool call (target_character_id, delta, cause) for every HP change you describe, or describe none.`;
  return defineDetector<TState>({
    tools: [tool],
    name: options.name ?? 'hp_claim',
    detect(proposal, state, { effects }) {
      const calls = callsOf(effects, tool);
      const claims = findClaims(proposal.text, patterns, guard).map((claim) => read(claim, patterns));
      const settled = settle(
        claims,
        calls.map((call) => deltaOf(call.args ?? {})),
      );
      let snippet: unknown;
      const defaultSnippet = (): unknown => {
        snippet ??= {
          hp_changes_only_via: tool,
          [`${tool}_calls`]: calls
            .slice(0, MAX_LISTED_CALLS)
            .map((call) => ({ id: call.id, delta: deltaOf(call.args ?? {}) ?? null })),
          ...(calls.length > MAX_LISTED_CALLS ? { more_calls: calls.length - MAX_LISTED_CALLS } : {}),
        };
        return snippet;
      };
      return claims
        .filter((_, index) => !settled[index])
        .map((claim) => ({
          expected_state_snippet:
            options.snippet === undefined ? defaultSnippet() : options.snippet(state, claim.text),
          mismatch_reason: `The text claims an HP change ("${claim.text}") but no ${tool} call${expected(claim)} settles it`,
          instructions,
          evidence: claim.text,
        }));
    },
  });
}

/** The snippet lists at most this many calls; the rest are counted. */
const MAX_LISTED_CALLS = 20;

/** One HP claim: its text, whether it says HP goes down or up, and by how much. */
interface Claim {
  readonly text: string;
  readonly direction: 'loss' | 'gain' | undefined;
  readonly amount: number | undefined;
}

/** Reads a found claim's direction (a `sign` group overrides the pattern's) and amount. */
function read(claim: FoundClaim, patterns: readonly HpClaimPattern[]): Claim {
  const sign = claim.groups['sign'];
  return {
    text: claim.text,
    direction: sign === undefined ? patterns[claim.pattern]?.direction : sign === '+' ? 'gain' : 'loss',
    amount: parseAmount(claim.groups['amount']),
  };
}

/** The calls of `tool` the turn has taken effect with if the proposal is accepted. */
export function callsOf(effects: readonly AppliedAction[], tool: string): readonly AppliedAction[] {
  return effects.filter((call) => call.tool === tool);
}

/**
 * Matches claims to effects one to one: a claim that states an amount takes one effect of that
 * size and sign (no effect settles two such claims); a claim without an amount needs an effect of
 * its sign (or any, without a sign) and shares it, since it restates a change rather than adding
 * one ("you take 5 damage; your HP drops"). Linear: effects are counted by delta.
 */
function settle(claims: readonly Claim[], deltas: readonly (number | undefined)[]): readonly boolean[] {
  const left = new Map<number, number>();
  let losses = 0;
  let gains = 0;
  for (const delta of deltas) {
    if (delta === undefined) continue;
    left.set(delta, (left.get(delta) ?? 0) + 1);
    if (delta < 0) losses++;
    if (delta > 0) gains++;
  }
  const take = (delta: number): boolean => {
    const count = left.get(delta) ?? 0;
    if (count === 0) return false;
    left.set(delta, count - 1);
    return true;
  };
  const settled = claims.map(() => false);
  // Signed amounts first, then amounts of either sign, so a free choice never takes a needed effect.
  claims.forEach((claim, index) => {
    if (claim.amount === undefined || claim.direction === undefined) return;
    settled[index] = take(claim.direction === 'loss' ? -claim.amount : claim.amount);
  });
  claims.forEach((claim, index) => {
    if (claim.amount === undefined || claim.direction !== undefined) return;
    settled[index] = take(-claim.amount) || take(claim.amount);
  });
  claims.forEach((claim, index) => {
    if (claim.amount !== undefined) return;
    if (claim.direction === 'loss') settled[index] = losses > 0;
    else if (claim.direction === 'gain') settled[index] = gains > 0;
    else settled[index] = deltas.length > 0;
  });
  return settled;
}

function defaultDelta(args: Readonly<Record<string, unknown>>): number | undefined {
  const delta = args['delta'];
  return typeof delta === 'number' && Number.isFinite(delta) ? delta : undefined;
}

function expected(claim: Claim): string {
  const sign = claim.direction === 'loss' ? '-' : claim.direction === 'gain' ? '+' : '±';
  if (claim.amount !== undefined) return ` with delta ${sign}${claim.amount}`;
  if (claim.direction !== undefined)
    return ` with a ${claim.direction === 'loss' ? 'negative' : 'positive'} delta`;
  return '';
}
