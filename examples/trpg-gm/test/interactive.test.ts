import type { Proposal } from '@parley/conflict';
import { createManualClock } from '@parley/core';
import { createScriptedModel } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createPlayerConsole, HELP } from '../src/commands.js';
import type { GmRequest } from '../src/context.js';
import { improvise } from '../src/improviser.js';
import { createGmSession } from '../src/session.js';

async function console_() {
  const clock = createManualClock({ now: Date.UTC(2026, 0, 14, 19) });
  const model = createScriptedModel<Proposal, GmRequest>({ clock, respond: improvise });
  let n = 0;
  const session = await createGmSession({ clock, model, generateTurnId: () => `turn_${++n}` });
  return { session, players: createPlayerConsole(session), model, clock };
}

describe('the interactive console with the improvising GM', () => {
  it('plays typed turns through the same host, and the movement lock still holds', async () => {
    const { session, players, clock } = await console_();
    const moved = await players.handle('aria: I walk to the market');
    expect(moved).toContain('     ✓ move pc_aria: village_gate → market (via gate_market)');
    expect(await players.handle('/combat')).toEqual(['phase: combat']);
    const locked = await players.handle('I walk back to the village_gate');
    expect(locked?.some((line) => line.includes('[not_allowed]'))).toBe(true);
    expect(session.state.positions['pc_aria']).toBe('market');
    const hit = await players.handle('I shoot the goblin');
    expect(hit).toContain('     ✓ hp_delta npc_goblin: HP 7 → 4 (alive)');
    expect(await players.handle('/peace')).toEqual(['phase: exploration']);
    await session.close();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('switches the speaking player by name', async () => {
    const { session, players } = await console_();
    expect(players.actor).toBe('pc_aria');
    await players.handle('bram: I look around');
    expect(players.actor).toBe('pc_bram');
    expect(session.turnLog[0]).toMatchObject({ actor_id: 'pc_bram', user_input: 'I look around' });
    await session.close();
  });

  it('answers rules questions without tools in the rules dialog', async () => {
    const { session, players, model } = await console_();
    expect(await players.handle('/type rules')).toEqual(['dialog type "rules" from the next turn']);
    const answer = await players.handle('What does the oath forbid?');
    expect(answer?.at(-1)).toContain('The Lantern Oath forbids abandoning a companion');
    expect(model.lastRequest?.tools).toEqual([]);
    await session.close();
  });

  it('prints refusals with their codes and never plays them as turns', async () => {
    const { session, players, model } = await console_();
    expect(await players.handle('/type battle')).toEqual(['refused (invalid_value)']);
    expect(await players.handle('/set rollback.max_checkpoints 3')).toEqual(['refused (scope_mismatch)']);
    expect(await players.handle('/set rules.hp_zero_ends_game true')).toEqual([
      'rules.hp_zero_ends_game saved for the next turn',
    ]);
    expect(await players.handle('/undo')).toEqual(['refused (nothing_to_undo): No rollback to undo']);
    expect(await players.handle('/rollback turn_7')).toEqual([
      'refused (no_checkpoint): There is no checkpoint for turn_7 (kept: 5)',
    ]);
    expect(await players.handle('/dance')).toEqual([`unknown command /dance; ${HELP}`]);
    expect(await players.handle('   ')).toEqual([]);
    expect(model.calls).toHaveLength(0);
    expect(session.turnLog).toEqual([]);
    await session.close();
  });

  it('rolls back and undoes from the console, lists the log and the state, and quits', async () => {
    const { session, players } = await console_();
    await players.handle('I walk to the market');
    expect(await players.handle('/rollback turn_0')).toEqual([
      'rolled back to turn_0; /undo until your next command',
    ]);
    expect(await players.handle('/state')).toEqual([
      'Aria 18/18 HP @village_gate, Bram 26/26 HP @village_gate; Snikt 7/7 HP · phase exploration · milestone 0 (0/7 turns) · turn 0',
    ]);
    expect(await players.handle('/undo')).toEqual(['undone: back to turn_1']);
    expect(await players.handle('/log')).toEqual(['turn_1 (turn 1) Aria: I walk to the market']);
    expect(await players.handle('/help')).toEqual([HELP]);
    expect(await players.handle('/quit')).toBeUndefined();
    await session.close();
  });
});
