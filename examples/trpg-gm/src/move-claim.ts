// Spec §7.1, second example: the narrative says someone entered a place, but no move call asks for
// it. Built on @parley/conflict's generic pieces (defineDetector, findClaims, the turn's
// `effects`); the phrases are in src/claim-patterns.ts.
import {
  type ClaimPattern,
  DEFAULT_CLAIM_GUARD,
  type Detector,
  defineDetector,
  findClaims,
} from '@parley/conflict';
import { DEFAULT_MOVE_CLAIM_PATTERNS } from './claim-patterns.js';
import { callsOf } from './hp-claim.js';

/**
 * Options for {@link defineMoveClaimDetector}.
 *
 * @example
 * ```ts
 * import type { MoveClaimDetectorOptions } from './move-claim.js';
 *
 * interface Campaign { partyArea: string; areas: Record<string, string> }
 * const options: MoveClaimDetectorOptions<Campaign> = {
 *   resolveArea: (text, state) => Object.keys(state.areas).find((name) => text.startsWith(name)),
 *   currentAreas: (state) => [state.partyArea],
 * };
 * ```
 */
export interface MoveClaimDetectorOptions<TState> {
  /** Reported as `detector`; `move_claim` by default. */
  readonly name?: string;
  /** The phrases that count as a move; {@link DEFAULT_MOVE_CLAIM_PATTERNS} by default (group `area`). */
  readonly patterns?: readonly ClaimPattern[];
  /** Skips a match when its clause so far matches this; {@link DEFAULT_CLAIM_GUARD} by default, `null` for none. */
  readonly guard?: RegExp | null;
  /** The tool that moves; `move` by default. */
  readonly tool?: string;
  /**
   * Maps the claimed place (the rest of the clause, e.g. "tavern and orders a drink") to an area
   * id, or `undefined` when it names no known area. Without it, any `move` call settles a claim.
   */
  readonly resolveArea?: (text: string, state: TState) => string | undefined;
  /**
   * Where the actors are now; a claim of arriving where they already are is no conflict, unless
   * the turn also moves someone (then only a move's destination settles a claim).
   */
  readonly currentAreas?: (state: TState) => readonly string[];
  /** Reads the destination from a call's args; `args.to_area_id` by default. */
  readonly destinationOf?: (args: Readonly<Record<string, unknown>>) => string | undefined;
  /** The retry instruction; an English sentence naming the tool by default. */
  readonly instructions?: string;
}

/**
 * Defines the detector for spec §7.1's second example: the narrative says someone entered a place, but the system position did not change and no `move` call asks for it.
 *
 * Use it in the conflict loop of a game turn, with `resolveArea` and `currentAreas` when you can
 * map names to area ids (then the call must go to that area, and arriving where the party already
 * is passes). It is pattern based ("moves to the tavern", "来到酒馆", "前往…"), skips negated or
 * conditional clauses, and will miss phrasings outside its patterns; replace them as needed.
 *
 * @throws ConflictError `invalid_argument` (from `defineDetector`) when `name` is empty.
 * @example
 * ```ts
 * import { defineMoveClaimDetector } from './move-claim.js';
 *
 * const move = defineMoveClaimDetector<{ at: string }>({
 *   resolveArea: (text) => (text.startsWith('酒馆') || text.startsWith('tavern') ? 'tavern' : undefined),
 *   currentAreas: (state) => [state.at],
 * });
 * const context = { attempt: 1, applied: [] };
 * const bad = await move.detect({ text: '你们来到酒馆。' }, { at: 'market' }, context);
 * const already = await move.detect({ text: 'You walk into the tavern.' }, { at: 'tavern' }, context);
 * console.log(bad.length, already.length); // 1 0
 * ```
 */
export function defineMoveClaimDetector<TState = unknown>(
  options: MoveClaimDetectorOptions<TState> = {},
): Detector<TState> {
  const patterns = options.patterns ?? DEFAULT_MOVE_CLAIM_PATTERNS;
  const guard = options.guard === undefined ? DEFAULT_CLAIM_GUARD : options.guard;
  const tool = options.tool ?? 'move';
  const destinationOf = options.destinationOf ?? defaultDestination;
  const instructions =
    options.instructions ??
    `Do not move anyone in the narrative: request a ${tool} tool call (actor_id, from_area_id, to_area_id) and describe the move only as proposed.`;
  return defineDetector<TState>({
    tools: [tool],
    name: options.name ?? 'move_claim',
    detect(proposal, state, { effects }) {
      const calls = callsOf(effects, tool);
      const destinations = new Set(calls.map((call) => destinationOf(call.args ?? {})));
      const here = options.currentAreas?.(state);
      // Where the party is counts only for a turn that moves nobody: a move elsewhere in the same
      // turn means "you walk into the market" (where it stood) is no longer where it ends up.
      const hereSet = new Set(calls.length === 0 ? (here ?? []) : []);
      return findClaims(proposal.text, patterns, guard).flatMap((claim) => {
        const area = claim.groups['area'];
        const areaId = area === undefined ? undefined : options.resolveArea?.(area, state);
        if (areaId !== undefined && hereSet.has(areaId)) return [];
        const settled = areaId === undefined ? calls.length > 0 : destinations.has(areaId);
        if (settled) return [];
        return [
          {
            expected_state_snippet: { current_area_ids: here ?? null, claimed_area_id: areaId ?? null },
            mismatch_reason: `The text claims a move ("${claim.text}") but no ${tool} call${areaId === undefined ? '' : ` to ${areaId}`} was proposed, so the position has not changed`,
            instructions,
            evidence: claim.text,
          },
        ];
      });
    },
  });
}

function defaultDestination(args: Readonly<Record<string, unknown>>): string | undefined {
  const to = args['to_area_id'];
  return typeof to === 'string' ? to : undefined;
}
