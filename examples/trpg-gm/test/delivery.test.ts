import type { Proposal } from '@parley/conflict';
import { createManualClock } from '@parley/core';
import { createScriptedModel } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import type { GmRequest } from '../src/context.js';
import { createGmSession } from '../src/session.js';

describe('a chat message delivered twice', () => {
  it('is played once: the second delivery is refused already_played and moves no one', async () => {
    const clock = createManualClock({ now: Date.UTC(2026, 0, 14, 19) });
    const model = createScriptedModel<Proposal, GmRequest>({ clock });
    let n = 0;
    const session = await createGmSession({ clock, model, generateTurnId: () => `turn_${++n}` });
    model.reply({
      text: 'Aria walks to the market.',
      tool_calls: [
        {
          id: 'call_1',
          tool: 'move',
          args: { actor_id: 'pc_aria', from_area_id: 'village_gate', to_area_id: 'market' },
        },
      ],
    });
    const input = { actor_id: 'pc_aria', user_input: 'I walk to the market' };
    expect(await session.turn(input, { messageId: 'tg:42' })).toMatchObject({ ok: true });
    expect(await session.turn(input, { messageId: 'tg:42' })).toEqual({
      ok: false,
      code: 'already_played',
      message: 'That message was played as turn_1',
      reason: 'That message was played as turn_1',
    });
    expect(session.ledger).toHaveLength(1);
    expect(model.calls).toHaveLength(1);
    await session.close();
  });
});
