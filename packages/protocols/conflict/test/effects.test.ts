import { createFakeToolGate } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import {
  createConflictLoop,
  type DetectContext,
  defineDetector,
  type Proposal,
  type ToolGateLike,
  toFeedbackText,
} from '../src/index.js';
import { answers, hpCall, hpClaims, moveCall, moveClaims } from './helpers.js';

interface Campaign {
  hp: number;
  at: string;
}

/** A gate that really changes the campaign: hp_delta always runs, move runs unless `locked`. */
function campaignGate(campaign: Campaign, locked = true): ToolGateLike<Campaign> {
  return (calls) => {
    const executed = [];
    const failed_calls = [];
    for (const call of calls) {
      if (call.tool === 'hp_delta') {
        campaign.hp += Number(call.args['delta']);
        executed.push({ id: call.id, tool: call.tool });
      } else if (call.tool === 'move' && !locked) {
        campaign.at = String(call.args['to_area_id']);
        executed.push({ id: call.id, tool: call.tool });
      } else {
        failed_calls.push({
          id: call.id,
          tool: call.tool,
          status: 'rejected' as const,
          reason: 'area locked',
        });
      }
    }
    return { executed, feedback: { failed_calls } };
  };
}

const detectors = [hpClaims(), moveClaims()];

describe('an effect that already took effect in the run', () => {
  it('[EFFECT-01] does not apply an hp_delta again when a retry re-sends it under a fresh id', async () => {
    const campaign = { hp: 20, at: 'market' };
    const loop = createConflictLoop({ detectors, gate: campaignGate(campaign), maxRetries: 1 });
    const generate = answers<Proposal>(
      {
        text: 'You lose 5 HP and head to the vault.',
        tool_calls: [hpCall('call_A', -5), moveCall('call_B', 'vault')],
      },
      { text: 'You lose 5 HP; the vault stays shut.', tool_calls: [hpCall('call_C', -5)] },
    );

    const outcome = await loop.run({ input: 'x', generate, readState: () => campaign });

    expect(outcome.ok).toBe(true);
    expect(campaign.hp).toBe(15);
    expect(outcome.appliedActions.map((action) => action.id)).toEqual(['call_A']);
    expect(outcome.attempts[1]?.recognised).toEqual([
      { id: 'call_C', tool: 'hp_delta', as: 'call_A', status: 'applied' },
    ]);
    expect(outcome.attempts[1]?.executed).toEqual([]);
  });

  it('[EFFECT-01] tells the retry exactly which calls already took effect, not only the refused one', async () => {
    const campaign = { hp: 20, at: 'market' };
    const loop = createConflictLoop({ detectors, gate: campaignGate(campaign), maxRetries: 1 });
    const generate = answers<Proposal>(
      {
        text: 'You lose 5 HP and head to the vault.',
        tool_calls: [hpCall('call_A', -5), moveCall('call_B', 'vault')],
      },
      { text: 'The vault stays shut.' },
    );

    await loop.run({ input: 'x', generate, readState: () => campaign });

    const feedback = generate.requests[1]!.feedback[0]!;
    expect(feedback.tool_feedback?.failed_calls.map((call) => call.id)).toEqual(['call_B']);
    expect(feedback.already_applied).toEqual([
      { id: 'call_A', tool: 'hp_delta', args: hpCall('call_A', -5).args, attempt: 1 },
    ]);
    const text = toFeedbackText(generate.requests[1]!.feedback);
    expect(text).toContain('"already_applied"');
    expect(text).toContain('call_A');
  });

  it('applies a second equal call of one proposal: two hits are two effects', async () => {
    const campaign = { hp: 20, at: 'market' };
    const loop = createConflictLoop({ detectors, gate: campaignGate(campaign), maxRetries: 1 });
    const generate = answers<Proposal>(
      { text: 'You lose 5 HP and head to the vault.', tool_calls: [hpCall('a', -5), moveCall('b', 'vault')] },
      { text: 'You lose 5 HP, then you lose 5 HP.', tool_calls: [hpCall('c', -5), hpCall('d', -5)] },
    );

    const outcome = await loop.run({ input: 'x', generate, readState: () => campaign });

    expect(outcome.ok).toBe(true);
    expect(campaign.hp).toBe(10);
    expect(outcome.attempts[1]?.recognised.map((call) => call.id)).toEqual(['c']);
    expect(outcome.attempts[1]?.executed.map((call) => call.id)).toEqual(['d']);
  });

  it('hands every call of a first answer to the gate and the detectors as proposed, recognising none', async () => {
    const campaign = { hp: 20, at: 'market' };
    const seen: unknown[] = [];
    const watcher = defineDetector<Campaign>({
      name: 'watcher',
      detect: (_proposal, _state, context) => {
        seen.push({ effects: context.effects, applied: context.applied });
        return [];
      },
    });
    const given: string[][] = [];
    const gate = campaignGate(campaign);
    const loop = createConflictLoop<Campaign>({
      detectors: [watcher],
      gate: (calls, context) => {
        given.push(calls.map((call) => call.id));
        return gate(calls, context);
      },
    });
    const calls = [hpCall('a', -5), hpCall('b', -5)];
    const outcome = await loop.run({
      input: 'x',
      generate: answers({ text: 't', tool_calls: calls }),
      readState: () => campaign,
    });

    expect(given).toEqual([['a', 'b']]);
    expect(seen).toEqual([{ effects: calls, applied: [] }]);
    expect(outcome.attempts[0]).toMatchObject({ recognised: [], skippedCallIds: [], status: 'passed' });
    expect(outcome.attempts[0]?.executed.map((call) => call.id)).toEqual(['a', 'b']);
    expect(outcome.appliedActions.map((call) => call.id)).toEqual(['a', 'b']);
  });

  it('prefers the call with the same id when several equal calls are proposed again', async () => {
    const campaign = { hp: 20, at: 'market' };
    const loop = createConflictLoop({ gate: campaignGate(campaign), maxRetries: 1 });
    const generate = answers<Proposal>(
      { text: 'a', tool_calls: [hpCall('a', -5), moveCall('b', 'vault')] },
      { text: 'b', tool_calls: [hpCall('n', -5), hpCall('a', -5)] },
    );
    const outcome = await loop.run({ input: 'x', generate, readState: () => campaign });
    expect(outcome.attempts[1]?.recognised.map((call) => call.id)).toEqual(['a']);
    expect(outcome.attempts[1]?.executed.map((call) => call.id)).toEqual(['n']);
  });

  it('recognises a re-sent deferred call by its content and does not hand it to the gate again', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'delete_save' ? 'defer' : { status: 'rejected', reason: 'no' },
    );
    const loop = createConflictLoop({ gate, maxRetries: 1 });
    const outcome = await loop.run({
      input: 'x',
      generate: answers<Proposal>(
        {
          text: 'a',
          tool_calls: [
            { id: 'd1', tool: 'delete_save', args: { slot: 1 } },
            { id: 'x', tool: 'fly', args: {} },
          ],
        },
        { text: 'b', tool_calls: [{ id: 'd2', tool: 'delete_save', args: { slot: 1 } }] },
      ),
      readState: () => ({}),
    });
    expect(outcome.ok).toBe(true);
    expect(gate.batches).toHaveLength(1);
    expect(outcome.attempts[1]?.recognised).toEqual([
      { id: 'd2', tool: 'delete_save', as: 'd1', status: 'deferred' },
    ]);
  });

  it('sees arguments in another key order as the same effect', async () => {
    const campaign = { hp: 20, at: 'market' };
    const loop = createConflictLoop({ gate: campaignGate(campaign), maxRetries: 1 });
    const generate = answers<Proposal>(
      { text: 'a', tool_calls: [hpCall('a', -5), moveCall('b', 'vault')] },
      {
        text: 'b',
        tool_calls: [
          { id: 'c', tool: 'hp_delta', args: { cause: 'arrow', delta: -5, target_character_id: 'pc_1' } },
        ],
      },
    );
    await loop.run({ input: 'x', generate, readState: () => campaign });
    expect(campaign.hp).toBe(15);
  });
});

describe('a call id reused for another call', () => {
  it('[EFFECT-02] refuses it with call_id_reused instead of skipping it, and accepts no narrative of it', async () => {
    const campaign = { hp: 20, at: 'market' };
    const gate = campaignGate(campaign, false);
    const loop = createConflictLoop({ detectors, gate, maxRetries: 1 });
    const generate = answers<Proposal>(
      {
        text: 'You lose 5 HP and fly.',
        tool_calls: [hpCall('call_1', -5), { id: 'call_2', tool: 'fly', args: {} }],
      },
      { text: 'You walk into the garden.', tool_calls: [moveCall('call_1', 'garden')] },
    );

    const outcome = await loop.run({ input: 'x', generate, readState: () => campaign });

    expect(outcome.ok).toBe(false);
    expect(campaign.at).toBe('market');
    expect(campaign.hp).toBe(15);
    const second = outcome.attempts[1]!;
    expect(second.conflicts.map((conflict) => conflict.detector)).toEqual(['move_claim']);
    expect(second.toolFeedback?.failed_calls).toEqual([
      expect.objectContaining({ id: 'call_1', tool: 'move', status: 'rejected', code: 'call_id_reused' }),
    ]);
    expect(second.toolFeedback?.failed_calls[0]?.reason).toContain('new id');
  });

  it('runs none of the calls of an attempt that reuses an id for another call', async () => {
    const gate = createFakeToolGate((call) =>
      call.tool === 'fly' ? { status: 'rejected', reason: 'no' } : 'execute',
    );
    const loop = createConflictLoop({ gate, maxRetries: 2 });
    const generate = answers<Proposal>(
      { text: 'a', tool_calls: [hpCall('c1', -5), { id: 'f', tool: 'fly', args: {} }] },
      { text: 'b', tool_calls: [moveCall('c1', 'garden'), hpCall('c2', -1)] },
      { text: 'c', tool_calls: [moveCall('c3', 'garden')] },
    );
    const outcome = await loop.run({ input: 'x', generate, readState: () => ({}) });
    expect(outcome.ok).toBe(true);
    expect(outcome.attempts[1]?.status).toBe('tool_rejected');
    expect(gate.batches.map((batch) => batch.map((call) => call.id))).toEqual([['c1', 'f'], ['c3']]);
  });

  it('sends a refused call again when the retry repeats it unchanged under its old id', async () => {
    let tries = 0;
    const gate = createFakeToolGate((call) =>
      call.tool === 'move' && ++tries === 1 ? { status: 'error', reason: 'map service down' } : 'execute',
    );
    const loop = createConflictLoop({ gate, maxRetries: 1 });
    const outcome = await loop.run({
      input: 'x',
      generate: answers<Proposal>(
        { text: 'a', tool_calls: [moveCall('m1', 'vault')] },
        { text: 'b', tool_calls: [moveCall('m1', 'vault')] },
      ),
      readState: () => ({}),
    });
    expect(outcome.ok).toBe(true);
    expect(gate.runs.get('m1')).toBe(1);
  });
});

describe('the effects a detector receives', () => {
  const seen: string[][] = [];
  const spy = defineDetector({
    name: 'spy',
    detect: (_proposal, _state, { effects }) => {
      seen.push(effects.map((call) => call.id));
      return undefined;
    },
  });
  const applied = [{ id: 'a', tool: 'hp_delta', args: hpCall('a', -5).args }];

  it('works them out from applied and the proposal when called without them, each effect once', async () => {
    seen.length = 0;
    const proposal = { text: '', tool_calls: [hpCall('b', -5), hpCall('c', -5), moveCall('d', 'vault')] };
    await spy.detect(proposal, {}, { attempt: 2, applied });
    expect(seen).toEqual([['a', 'c', 'd']]); // b re-sends a under a fresh id
  });

  it('passes the effects the caller gives untouched', async () => {
    seen.length = 0;
    const context: DetectContext = { attempt: 2, applied, effects: [{ id: 'x', tool: 'move' }] };
    await spy.detect({ text: '', tool_calls: [hpCall('b', -5)] }, {}, context);
    expect(seen).toEqual([['x']]);
  });
});

describe('claims matched to effects one to one', () => {
  it('[EFFECT-03] does not let one hp_delta of -5 settle two claims of losing 5 HP', async () => {
    const found = await hpClaims().detect(
      {
        text: 'The arrow hits: you lose 5 HP. The second arrow hits: you lose 5 HP.',
        tool_calls: [hpCall('c1', -5)],
      },
      {},
      { attempt: 1, applied: [] },
    );
    expect(found).toHaveLength(1);
    expect(found[0]?.mismatch_reason).toContain('delta -5');
  });

  it('settles two claims with an applied call and a second equal call beside its re-sent copy', async () => {
    const found = await hpClaims().detect(
      { text: 'You lose 5 HP. Then you lose 5 HP.', tool_calls: [hpCall('c2', -5), hpCall('c3', -5)] },
      {},
      { attempt: 2, applied: [{ id: 'c1', tool: 'hp_delta', args: hpCall('c1', -5).args }] },
    );
    expect(found).toEqual([]);
  });

  it('does not count an applied call and its re-sent copy as two effects', async () => {
    const found = await hpClaims().detect(
      { text: 'You lose 5 HP. Then you lose 5 HP.', tool_calls: [hpCall('c2', -5)] },
      {},
      { attempt: 2, applied: [{ id: 'c1', tool: 'hp_delta', args: hpCall('c2', -5).args }] },
    );
    expect(found).toHaveLength(1);
  });
});

describe('content identity at the edges', () => {
  it('tells two applied calls with equal content apart from a third, new one', async () => {
    const found = await hpClaims().detect(
      {
        text: 'You lose 5 HP. You lose 5 HP. You lose 5 HP.',
        tool_calls: [hpCall('x', -5), hpCall('y', -5), hpCall('z', -5)],
      },
      {},
      {
        attempt: 2,
        applied: [
          { id: 'a', tool: 'hp_delta', args: hpCall('a', -5).args },
          { id: 'b', tool: 'hp_delta', args: hpCall('b', -5).args },
        ],
      },
    );
    expect(found).toEqual([]);
  });

  it('counts a proposed call whose args are not JSON as unlike any applied one', async () => {
    const odd = { id: 'n', tool: 'hp_delta', args: { delta: -5, at: new Date(0) } };
    const found = await hpClaims().detect(
      { text: 'You lose 5 HP. You lose 5 HP.', tool_calls: [odd] },
      {},
      { attempt: 2, applied: [{ id: 'a', tool: 'hp_delta', args: hpCall('a', -5).args }] },
    );
    expect(found).toEqual([]);
  });

  it('cuts a long repeated id in a malformed output without splitting a surrogate pair', async () => {
    const id = `${'x'.repeat(78)}😀tail`;
    const outcome = await createConflictLoop({ maxRetries: 0 }).run({
      input: 'x',
      generate: answers<Proposal>({ text: 'a', tool_calls: [hpCall(id, -1), hpCall(id, -1)] }),
      readState: () => ({}),
    });
    const reason = outcome.attempts[0]!.conflicts[0]!.mismatch_reason;
    expect(reason).toContain(`"${'x'.repeat(78)}…"`);
  });
});
