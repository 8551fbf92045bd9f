import { fc, it as fcIt } from '@fast-check/vitest';
import {
  createConflictLoop,
  type Detector,
  defineDetector,
  findClaims,
  type Proposal,
  type ToolCall,
  type ToolGateLike,
} from '@parley/conflict';
import { describe, expect } from 'vitest';
import { cite } from './catalogue.js';
import { runs } from './config.js';

// A model-based test of the conflict loop: random attempt sequences, with fresh call ids as real
// model APIs issue them (and now and then an old id reused for other content), run against a
// campaign, while a reference log records every effect the gate really applied. Properties:
// no effect is applied more often than one attempt proposed it; an accepted narrative claims only
// effects the log holds (one claim, one effect); the feedback states exactly the log so far.

const AREAS = ['market', 'garden', 'vault'] as const;
type Area = (typeof AREAS)[number];

/** One effect the model may mean: an HP change or a move. */
type Effect = { readonly kind: 'hp'; readonly delta: number } | { readonly kind: 'move'; readonly to: Area };

const effect: fc.Arbitrary<Effect> = fc.oneof(
  fc.constantFrom(-5, -3, 2).map((delta) => ({ kind: 'hp' as const, delta })),
  fc.constantFrom(...AREAS).map((to) => ({ kind: 'move' as const, to })),
);

/** One attempt: what it calls, what it narrates on top, and whether it reuses an old id. */
const attempt = fc.record({
  calls: fc.array(effect, { maxLength: 3 }),
  /** Narrated without a call (a contradiction unless an earlier effect settles it). */
  extra: fc.array(effect, { maxLength: 1 }),
  /** Leave the claim of the first call out of the narrative. */
  quiet: fc.boolean(),
  reuse: fc.option(fc.nat(20), { nil: undefined }),
});

const claimOf = (e: Effect): string =>
  e.kind === 'hp'
    ? e.delta < 0
      ? `You lose ${-e.delta} HP.`
      : `You regain ${e.delta} HP.`
    : `You walk into the ${e.to}.`;

const keyOf = (e: Effect): string => (e.kind === 'hp' ? `hp:${e.delta}` : `move:${e.to}`);

function callOf(e: Effect, id: string): ToolCall {
  return e.kind === 'hp'
    ? { id, tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: e.delta, cause: 'fight' } }
    : { id, tool: 'move', args: { actor_id: 'pc_1', to_area_id: e.to } };
}

const effectOf = (call: ToolCall): Effect =>
  call.tool === 'hp_delta'
    ? { kind: 'hp', delta: Number(call.args['delta']) }
    : { kind: 'move', to: call.args['to_area_id'] as Area };

/**
 * The campaign's claim detector, on the package's generic pieces: each "You lose / regain N HP"
 * needs its own hp_delta effect of that delta (one claim, one effect); "You walk into the X" needs
 * a move to X, or X is where the party stands and the turn moves nobody.
 */
function claimsDetector(): Detector<{ readonly at: Area }> {
  return defineDetector<{ readonly at: Area }>({
    name: 'campaign_claims',
    tools: ['hp_delta', 'move'],
    detect: (proposal, state, { effects }) => {
      const left = effects.filter((call) => call.tool === 'hp_delta').map((call) => call.args?.['delta']);
      const moves = effects.filter((call) => call.tool === 'move').map((call) => call.args?.['to_area_id']);
      const patterns = [
        { pattern: /\bYou (?<verb>lose|regain) (?<amount>\d+) HP\b/ },
        { pattern: /\bYou walk into the (?<area>\w+)/ },
      ];
      return findClaims(proposal.text, patterns).flatMap((claim) => {
        const { verb, amount, area } = claim.groups;
        if (area !== undefined) {
          if (moves.includes(area) || (moves.length === 0 && area === state.at)) return [];
        } else {
          const at = left.indexOf(verb === 'lose' ? -Number(amount) : Number(amount));
          if (at >= 0) {
            left.splice(at, 1);
            return [];
          }
        }
        return [
          {
            expected_state_snippet: { at: state.at },
            mismatch_reason: `The text claims "${claim.text}" but no call settles it`,
            instructions: 'Request a tool call for every change you describe.',
            evidence: claim.text,
          },
        ];
      });
    },
  });
}

describe('the conflict loop against a reference log', () => {
  fcIt.prop([fc.array(attempt, { minLength: 1, maxLength: 4 }), fc.nat(3)], { numRuns: runs(150) })(
    `${cite('EFFECT-06')} never applies an effect twice and never accepts a narrative the log does not back`,
    async (script, maxRetries) => {
      const campaign = { hp: 20, at: 'market' as Area };
      const log: { readonly id: string; readonly effect: Effect }[] = [];
      // Healing is disabled and the vault is locked: some calls are refused, the rest apply.
      const gate: ToolGateLike<typeof campaign> = (calls) => {
        const executed = [];
        const failed_calls = [];
        for (const call of calls) {
          const e = effectOf(call);
          if ((e.kind === 'hp' && e.delta > 0) || (e.kind === 'move' && e.to === 'vault')) {
            failed_calls.push({
              id: call.id,
              tool: call.tool,
              status: 'rejected' as const,
              reason: 'not now',
            });
            continue;
          }
          if (e.kind === 'hp') campaign.hp += e.delta;
          else campaign.at = e.to;
          log.push({ id: call.id, effect: e });
          executed.push({ id: call.id, tool: call.tool });
        }
        return { executed, feedback: { failed_calls } };
      };
      const loop = createConflictLoop({
        detectors: [claimsDetector()],
        gate,
        maxRetries,
      });

      let next = 0;
      const usedIds: string[] = [];
      const proposed: ToolCall[][] = [];
      const logSeen: string[][] = [];
      const outcome = await loop.run({
        input: 'the goblin attacks',
        readState: () => campaign,
        generate: (request) => {
          const last = request.feedback.at(-1);
          logSeen.push((last?.already_applied ?? []).map((entry) => entry.id));
          const step = script[Math.min(request.feedback.length, script.length - 1)]!;
          const calls = step.calls.map((e, index) => {
            const old =
              step.reuse === undefined || index > 0 ? undefined : usedIds[step.reuse % (usedIds.length || 1)];
            return callOf(e, old ?? `call_${next++}`);
          });
          usedIds.push(...calls.map((call) => call.id));
          proposed.push(calls);
          const told = [...step.calls.slice(step.quiet ? 1 : 0), ...step.extra];
          return {
            text: told.map(claimOf).join(' ') || 'The goblin hesitates.',
            tool_calls: calls,
          } satisfies Proposal;
        },
      });

      // 1. No effect applied twice: no content ran more often than one attempt asked for it.
      const ran = new Map<string, number>();
      for (const entry of log) ran.set(keyOf(entry.effect), (ran.get(keyOf(entry.effect)) ?? 0) + 1);
      for (const [key, count] of ran) {
        const most = Math.max(
          ...proposed.map((calls) => calls.filter((call) => keyOf(effectOf(call)) === key).length),
        );
        expect(count).toBeLessThanOrEqual(most);
      }
      expect(outcome.appliedActions.map((action) => action.id)).toEqual(log.map((entry) => entry.id));

      // 2. The feedback of every retry stated exactly what had run so far.
      for (const [index, seen] of logSeen.entries()) {
        if (index === 0) continue;
        const before = outcome.attempts
          .slice(0, index)
          .flatMap((record) => record.executed.map((action) => action.id));
        expect(seen).toEqual(before);
      }

      // 3. An accepted narrative claims only what the log holds, each HP claim its own effect.
      if (outcome.ok) {
        const claims = outcome.output.text.match(/You (?:lose|regain) \d+ HP|You walk into the \w+/g) ?? [];
        const left = log.map((entry) => keyOf(entry.effect));
        for (const claim of claims) {
          const moved = /the (\w+)$/.exec(claim)?.[1];
          if (moved !== undefined) {
            expect(moved === campaign.at || left.includes(`move:${moved}`)).toBe(true);
            continue;
          }
          const amount = Number(/\d+/.exec(claim)![0]);
          const key = `hp:${claim.includes('lose') ? -amount : amount}`;
          const at = left.indexOf(key);
          expect(at).toBeGreaterThanOrEqual(0);
          left.splice(at, 1);
        }
      }
      expect(campaign.hp).toBe(
        20 + log.reduce((sum, entry) => sum + (entry.effect.kind === 'hp' ? entry.effect.delta : 0), 0),
      );
    },
  );
});
