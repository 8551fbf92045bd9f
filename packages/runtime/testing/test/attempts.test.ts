// describeAttempts through the public API, on real conflict-loop outcomes: clean, conflict then
// pass, refused and executed calls of one draft, recognised repeats, and a loop that gives up.
import {
  type ConflictOutcome,
  createConflictLoop,
  defineDetector,
  type Proposal,
  type ToolGateLike,
} from '@parley/conflict';
import { describe, expect, it } from 'vitest';
import { createFakeClock, describeAttempts } from '../src/index.js';

const noShouting = defineDetector<unknown>({
  name: 'no_shouting',
  detect: (p) =>
    /[A-Z]{3}/.test(p.text)
      ? { expected_state_snippet: {}, mismatch_reason: 'all capitals', instructions: 'calm down' }
      : undefined,
});

// A gate that refuses `move` (locked until turn 6) and runs everything else.
const gate: ToolGateLike<unknown> = (calls) => ({
  executed: calls
    .filter((call) => call.tool !== 'move')
    .map((call) => ({ id: call.id, tool: call.tool, args: call.args, result: { ok: 1 } })),
  feedback: {
    failed_calls: calls
      .filter((call) => call.tool === 'move')
      .map((call) => ({
        id: call.id,
        tool: call.tool,
        status: 'rejected' as const,
        reason: 'locked',
        ...(call.args['to'] === 'gate' ? { disabled_until: 'turn 6', code: 'disabled' } : {}),
      })),
  },
});

async function play(drafts: Proposal[], maxRetries = 2): Promise<ConflictOutcome<Proposal, string>> {
  const loop = createConflictLoop({ detectors: [noShouting], gate, maxRetries, clock: createFakeClock() });
  return loop.run({ input: 'go', readState: () => ({}), generate: () => drafts.shift() ?? { text: '' } });
}

describe('describeAttempts', () => {
  it('tells a clean draft with its calls in the default formats', async () => {
    const outcome = await play([
      { text: 'ok', tool_calls: [{ id: 'c1', tool: 'hp_delta', args: { d: -1 } }] },
    ]);
    expect(describeAttempts(outcome)).toEqual([
      '   draft 1: "ok" + hp_delta({"d":-1})',
      '     ✓ hp_delta c1 → {"ok":1}',
    ]);
  });

  it('tells refused and executed calls of one draft, the retry, and a call recognised as run', async () => {
    const hit = { id: 'c1', tool: 'hp_delta', args: { d: -5 } };
    const outcome = await play([
      { text: 'arrow and run', tool_calls: [hit, { id: 'c2', tool: 'move', args: { to: 'gate' } }] },
      { text: 'arrow', tool_calls: [{ ...hit, id: 'c3' }], structured: { mood: 'grim' } },
    ]);
    const lines = describeAttempts(outcome, {
      author: 'GM',
      maxRetries: 2,
      indent: '',
      formatCall: (call) => `${call.tool}#${call.id}`,
      formatApplied: (action) => `ran ${action.id}`,
    });
    expect(lines).toEqual([
      'GM draft 1: "arrow and run" + hp_delta#c1, move#c2',
      '  ✗ refused move c2 [disabled]: locked (disabled_until: turn 6)',
      '  ✓ ran c1',
      '  ↻ tool_feedback appended to the previous request (retry 1 of 2)',
      'GM draft 2: "arrow" + hp_delta#c3 + structured {"mood":"grim"}',
      '  = hp_delta c3 is c1, already applied: not run again',
    ]);
  });

  it('tells a conflict without K, and a loop that gives up with its conflict_report', async () => {
    const retried = await play([{ text: 'HEY' }, { text: 'hey' }]);
    expect(describeAttempts(retried)[2]).toBe(
      '     ↻ conflict_debug appended to the previous request (retry 1)',
    );
    const refused = await play(
      [{ text: 'go', tool_calls: [{ id: 'c9', tool: 'move', args: { to: 'x' } }] }],
      0,
    );
    expect(describeAttempts(refused, { maxRetries: 3 }).slice(1, 3)).toEqual([
      '     ✗ refused move c9 [rejected]: locked',
      '     ⨯ no retries left (K = 3)',
    ]);
    const failed = await play([{ text: 'HEY' }, { text: 'YOU' }], 1);
    const lines = describeAttempts(failed);
    expect(lines.slice(-3)).toEqual([
      '     ✗ conflict [no_shouting] all capitals',
      '     ⨯ no retries left (K = 1)',
      expect.stringMatching(/^ {3}⚠ conflict_report \(\w+\) after 2 attempts: /),
    ]);
  });

  it('shows whatever a faulty model returned without throwing', async () => {
    const loop = createConflictLoop({ detectors: [], maxRetries: 0, clock: createFakeClock() });
    const outcome = await loop.run({
      input: 'go',
      readState: () => ({}),
      generate: () => {
        throw new Error('model down');
      },
    });
    expect(describeAttempts(outcome, { maxRetries: 0 })[0]).toBe('   draft 1: ""');
  });
});
