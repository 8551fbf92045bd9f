// The conflict loop's K and switches are campaign settings (spec §7.2), read when each attempt is
// decided; every state-changing tool has its conflict check (spec §10).
import type { Proposal } from '@parley/conflict';
import { createManualClock } from '@parley/core';
import { createScriptedModel } from '@parley/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { GmRequest } from '../src/context.js';
import { createGmSession, type GmSession } from '../src/session.js';

let open: GmSession[] = [];
afterEach(async () => {
  for (const session of open) await session.close();
  open = [];
});

const claim: Proposal = { text: 'Aria walks to the market.' }; // a move with no move call
const quiet: Proposal = { text: 'The wind blows.' };

async function start(): Promise<{
  session: GmSession;
  model: ReturnType<typeof createScriptedModel<Proposal, GmRequest>>;
}> {
  const clock = createManualClock({ now: Date.UTC(2026, 0, 14, 19) });
  const model = createScriptedModel<Proposal, GmRequest>({ clock });
  const session = await createGmSession({ clock, model, generateTurnId: () => 'turn_1' });
  open.push(session);
  return { session, model };
}

describe('conflict settings of the campaign', () => {
  it('retry_with_debug off: a conflicting draft is reported at once, with no retry', async () => {
    const { session, model } = await start();
    await session.settings.set(session.campaign.campaign_id, 'conflict.retry_with_debug', false);
    model.reply(claim, quiet);
    const result = await session.turn({ actor_id: 'pc_aria', user_input: 'go to the market' });
    expect(result.ok && !result.outcome.ok ? result.outcome.code : undefined).toBe('retry_disabled');
    expect(model.requests).toHaveLength(1);
  });

  it('intercept_output off: the same draft is not checked against the state', async () => {
    const { session, model } = await start();
    await session.settings.set(session.campaign.campaign_id, 'conflict.intercept_output', false);
    model.reply(claim);
    const result = await session.turn({ actor_id: 'pc_aria', user_input: 'go to the market' });
    expect(result.ok && result.outcome.ok).toBe(true);
    expect(model.requests).toHaveLength(1); // accepted as it was: no detector objected
  });

  it('K = 0 set mid-campaign counts for the next turn', async () => {
    const { session, model } = await start();
    await session.settings.set(session.campaign.campaign_id, 'conflict.max_retries', 0);
    model.reply(claim);
    const result = await session.turn({ actor_id: 'pc_aria', user_input: 'go to the market' });
    expect(result.ok && !result.outcome.ok ? result.outcome.report.max_retries : undefined).toBe(0);
    expect(result.ok ? result.maxRetries : undefined).toBe(0);
  });
});
