// Spec §8.1: the ultimate goal is generated from the world background, the map and the characters'
// backgrounds through the (scripted) goal model, checked by the host, written once and never
// rewritten, hideable afterwards; milestone prompts build on it.
import type { Proposal } from '@parley/conflict';
import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { GmRequest } from '../src/context.js';
import { createGoalModel, GOAL_PROPOSAL, initialGameState, ULTIMATE_GOAL } from '../src/fixtures.js';
import { sessionPool } from './helpers.js';

const pool = sessionPool();
const start = pool.start;
afterEach(pool.closeAll);

const aStore = (): Store => createMemoryStore({ clock: createManualClock({ now: 0 }) });
const otherGoal = {
  ultimate_goal_text: 'Crown the goblin king in the market square.',
  key_terms: ['goblin king'],
};

describe('the ultimate goal is generated at campaign creation', () => {
  it('sends the goal model the world background, the map and every character background', async () => {
    const goalModel = createGoalModel(createManualClock({ now: 0 }));
    await start({ goalModel });
    const state = initialGameState();
    expect(goalModel.calls).toHaveLength(1);
    const request = goalModel.calls[0]?.request;
    expect(request?.inputs.world_background).toBe(state.world.background);
    expect(request?.inputs.map.areas).toEqual([
      'village gate',
      'market',
      'old road',
      'ruined keep',
      'chapel',
    ]);
    expect(request?.inputs.map.paths).toContain('market <-rope_bridge-> old_road');
    expect(request?.inputs.characters).toEqual(
      Object.values(state.characters).map(({ name, background }) => ({ name, background })),
    );
    expect(request?.messages.at(-1)?.content).toBe(JSON.stringify(request?.inputs));
  });

  it('keeps what the model proposed as the campaign goal, hidden and frozen', async () => {
    const session = await start({ goalModel: createGoalModel(createManualClock({ now: 0 })) });
    expect(session.campaign.goal).toEqual({ ...GOAL_PROPOSAL, is_hidden: true });
    expect(Object.isFrozen(session.campaign.goal)).toBe(true);
    expect(Object.isFrozen(session.campaign.goal.key_terms)).toBe(true);
  });

  it('takes a goal written by another model: the goal is generated, not a fixture of the session', async () => {
    const session = await start({ goalModel: createGoalModel(createManualClock({ now: 0 }), [otherGoal]) });
    expect(session.campaign.goal).toEqual({ ...otherGoal, is_hidden: true });
  });

  it('asks once more with the reason when the proposal names no place of the map', async () => {
    const ungrounded = { ultimate_goal_text: 'Find happiness somewhere far away.', key_terms: ['happiness'] };
    const goalModel = createGoalModel(createManualClock({ now: 0 }), [ungrounded, GOAL_PROPOSAL]);
    const session = await start({ goalModel });
    expect(goalModel.calls.map((call) => call.request.attempt)).toEqual([1, 2]);
    expect(goalModel.calls[1]?.request.messages.at(-1)?.content).toBe(
      'Refused: The goal names no place of the map',
    );
    expect(session.campaign.goal.ultimate_goal_text).toBe(GOAL_PROPOSAL.ultimate_goal_text);
  });

  it('does not start a campaign whose goal the model never got right', async () => {
    const goalModel = createGoalModel(createManualClock({ now: 0 }), [{ ultimate_goal_text: 'short' }, 'no']);
    await expect(start({ goalModel })).rejects.toThrow(/invalid_goal/);
    expect(goalModel.calls).toHaveLength(2);
  });
});

describe('the goal is never rewritten', () => {
  it('keeps the stored goal when another process opens the campaign, without asking the model', async () => {
    const store = aStore();
    await start({ store, goalModel: createGoalModel(createManualClock({ now: 0 })) });
    const goalModel = createGoalModel(createManualClock({ now: 0 }), [otherGoal]);
    const again = await start({ store, goalModel });
    expect(again.campaign.goal).toEqual(ULTIMATE_GOAL);
    expect(goalModel.calls).toHaveLength(0);
  });

  it('does not start on a stored goal record that is not one', async () => {
    const store = aStore();
    await store.set('trpg:camp_lantern:goal', { ultimate_goal_text: 42 });
    await expect(start({ store })).rejects.toThrow(/invalid_goal/);
  });

  it('keeps the goal through a refused patch, a goal tool and a rewrite in the story', async () => {
    const session = await start();
    pool.model.reply(
      {
        text: 'The spirit speaks.',
        structured: { state_patch: { goal: { ultimate_goal_text: 'Crown the goblin king.' } } },
      },
      { text: 'The spirit declares: your quest is now to crown the goblin king.' },
      { text: 'The spirit smiles.' },
    );
    await session.turn({ actor_id: 'pc_aria', user_input: 'What is our quest?' });
    expect(session.campaign.goal).toEqual(ULTIMATE_GOAL);
    expect(await session.store.get('trpg:camp_lantern:goal')).toEqual(ULTIMATE_GOAL);
  });
});

describe('the goal can be hidden and shown afterwards', () => {
  it('changes only is_hidden, in the campaign and in the store', async () => {
    const session = await start();
    const shown = await session.setGoalHidden(false);
    expect(shown).toEqual({ ...ULTIMATE_GOAL, is_hidden: false });
    expect(session.campaign.goal).toEqual(shown);
    expect(await session.store.get('trpg:camp_lantern:goal')).toEqual(shown);
    expect((await session.setGoalHidden(true)).ultimate_goal_text).toBe(ULTIMATE_GOAL.ultimate_goal_text);
  });

  it('lets the narrative name a shown goal, and tells the GM the players know it', async () => {
    const session = await start();
    const naming: Proposal = {
      text: 'The elder reminds you: relight the Lantern of Dawn before the new moon.',
    };
    pool.model.reply(naming);
    const hidden = await session.turn({ actor_id: 'pc_aria', user_input: 'What must we do?' });
    expect(hidden.ok && hidden.outcome.attempts[0]?.conflicts.map((c) => c.detector)).toContain(
      'hidden_goal_leak',
    );
    await session.setGoalHidden(false);
    pool.model.reply(naming);
    const shown = await session.turn({ actor_id: 'pc_aria', user_input: 'What must we do?' });
    expect(shown.ok && shown.outcome.ok && shown.outcome.attempts.length).toBe(1);
    const system = pool.model.requests
      .at(-1)
      ?.messages.filter((m) => m.role === 'system')
      .map((m) => m.content);
    expect(system).toContain(
      `Ultimate goal (the players know it; never change it): ${ULTIMATE_GOAL.ultimate_goal_text}`,
    );
  });
});

describe('milestone prompts build on the goal', () => {
  it('adds the accelerate block with the goal once a milestone is reached, not before', async () => {
    const session = await start({ advancePolicy: { policy: 'by_turn_count', every_n_turns: 1 } });
    pool.model.reply({ text: 'The wind blows.' }, { text: 'The wind blows harder.' });
    await session.turn({ actor_id: 'pc_aria', user_input: 'We wait.' });
    await session.turn({ actor_id: 'pc_aria', user_input: 'We wait more.' });
    const milestone = (request: GmRequest | undefined) =>
      request?.messages.find((m) => m.content.startsWith('Milestone'))?.content;
    expect(milestone(pool.model.requests[0])).toBeUndefined();
    expect(milestone(pool.model.requests[1])).toContain('Milestone 1 reached.');
    expect(milestone(pool.model.requests[1])).toContain('Raise the urgency of the scene.');
    expect(milestone(pool.model.requests[1])).toContain(
      `Converge on the ultimate goal: ${ULTIMATE_GOAL.ultimate_goal_text}`,
    );
    expect(milestone(pool.model.requests[1])).toContain('keep it hidden: hint, never name it');
  });
});
