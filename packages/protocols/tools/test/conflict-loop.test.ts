import { createConflictLoop, type Proposal, type ToolGateLike } from '@parley/conflict';
import { describe, expect, it } from 'vitest';
import { createToolGate, toLoopGate } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall, moveCall, type TurnContext } from './helpers.js';

interface Campaign {
  readonly turn: number;
  readonly context: TurnContext;
}

function setup(context: TurnContext = EXPLORING) {
  const campaign = createCampaign();
  const gate = createToolGate({
    tools: campaign.tools,
    allowlist: ['move', 'hp_delta'],
    policies: [
      {
        name: 'movement_lock',
        tools: ['move'],
        check: ({ context: ctx }: { context: TurnContext }) =>
          ctx.state === 'combat' ? { reason: '区域移动锁未解除', toolReason: 'area_locked' } : undefined,
      },
    ],
  });
  const loopGate: ToolGateLike<Campaign> = toLoopGate(gate, (loop: { state: Campaign }) => ({
    turn: loop.state.turn,
    context: loop.state.context,
  }));
  const loop = createConflictLoop<Campaign>({ gate: loopGate, maxRetries: 2 });
  const state: Campaign = { turn: 1, context };
  return { ...campaign, gate, loop, state };
}

describe('the gate inside the @parley/conflict loop', () => {
  it('runs the calls of a clean attempt once', async () => {
    const t = setup();
    const outcome = await t.loop.run({
      input: 'turn 1',
      generate: async (): Promise<Proposal> => ({
        text: 'You walk into the vault.',
        tool_calls: [moveCall()],
      }),
      readState: () => t.state,
    });
    expect(outcome.ok).toBe(true);
    expect(t.positions.get('pc_1')).toBe('vault');
    expect(t.runs).toHaveLength(1);
  });

  it('appends the tool_feedback of a refused call to the retry and never reruns an executed call', async () => {
    const t = setup({ ...EXPLORING, state: 'combat' });
    const feedbackSeen: unknown[] = [];
    const answers: Proposal[] = [
      { text: 'You take 3 damage and run.', tool_calls: [hpCall('c1'), moveCall('c2')] },
      { text: 'You take 3 damage and hold your ground.', tool_calls: [hpCall('c1')] },
    ];
    const outcome = await t.loop.run({
      input: 'turn 1',
      generate: async (request) => {
        feedbackSeen.push(...request.feedback);
        return answers[request.feedback.length] as Proposal;
      },
      readState: () => t.state,
    });
    expect(outcome.ok).toBe(true);
    expect(t.hp.get('pc_1')).toBe(12); // hp_delta ran once, not again on the retry
    expect(t.positions.get('pc_1')).toBe('hall');
    expect(JSON.stringify(feedbackSeen)).toContain('区域移动锁未解除');
  });
});

describe('toLoopGate', () => {
  it('passes the loop signal on unless the selected options carry their own', async () => {
    const t = setup();
    const own = new AbortController();
    own.abort();
    const loop = new AbortController();
    const withOwn = toLoopGate(t.gate, () => ({ turn: 1, context: EXPLORING, signal: own.signal }));
    const refused = await withOwn([hpCall('a')], { state: t.state, attempt: 1, signal: loop.signal });
    expect(refused.feedback.failed_calls[0]?.code).toBe('cancelled');
    const withLoop = toLoopGate(t.gate, () => ({ turn: 1, context: EXPLORING }));
    const ran = await withLoop([hpCall('b')], { state: t.state, attempt: 1, signal: loop.signal });
    expect(ran.executed.map((call) => call.id)).toEqual(['b']);
    expect(t.runs).toHaveLength(1);
  });
});
