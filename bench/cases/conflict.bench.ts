import { createConflictLoop, type Proposal, type ToolGateLike } from '@parley/conflict';
// The reference game's HP and move detectors, built on the package's findClaims (they live with the game).
import { defineHpClaimDetector } from '../../examples/trpg-gm/src/hp-claim.js';
import { defineMoveClaimDetector } from '../../examples/trpg-gm/src/move-claim.js';
import { suite } from '../lib.js';

const state = { hp: 20, at: 'market' };
const narrative =
  'The goblin lunges from the shadows and its rusty blade finds a gap in your armour: you lose 5 HP. ' +
  'Borin shouts a warning, the crowd scatters and the market stalls topple one after another. '.repeat(8);
const proposal: Proposal = {
  text: narrative,
  tool_calls: [
    { id: 'call_1', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -5, cause: 'blade' } },
  ],
};
const gate: ToolGateLike<typeof state> = (calls) => ({
  executed: calls.map((call) => ({ id: call.id, tool: call.tool })),
});

/** What a host writes by hand: the same two claim checks and a direct gate call, no records or checks. */
async function handWritten(): Promise<boolean> {
  const hpClaim = /\b(?:lose|loses|lost|take|takes|took)\s+(\d+)\s*(?:hp|damage)\b/i.exec(proposal.text);
  const moveClaim = /\b(?:move|moves|walk|walks|go|goes)\s+(?:in)?to\s+/i.test(proposal.text);
  const calls = proposal.tool_calls ?? [];
  if (
    hpClaim !== null &&
    !calls.some((call) => call.tool === 'hp_delta' && call.args['delta'] === -Number(hpClaim[1]))
  )
    return false;
  if (moveClaim && !calls.some((call) => call.tool === 'move')) return false;
  await gate(calls, { state, attempt: 1, proposal, applied: [], signal: undefined });
  return true;
}

suite('conflict: one clean turn (1 KB narrative, 2 detectors, gate)', {
  cases: {
    'parley conflict loop': () => {
      const loop = createConflictLoop<typeof state>({
        detectors: [defineHpClaimDetector(), defineMoveClaimDetector()],
        gate,
      });
      return () => loop.run({ input: 'turn', generate: () => proposal, readState: () => state });
    },
    'hand-written check': () => () => handWritten(),
  },
});
