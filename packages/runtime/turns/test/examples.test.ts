// The @example of every export, with assertions.
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { createToolGate, defineTool } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createTurnRunner,
  DEFAULT_JOURNAL_TTL_MS,
  DEFAULT_TURN_TIMEOUT_MS,
  MAX_KEY_LENGTH,
  MAX_INPUT_LENGTH,
  type TurnOpenResult,
  TURN_REFUSAL_CODES,
  TURNS_ERROR_CODES,
  type TurnCheckpoint,
  type TurnCheckpointResult,
  type TurnPlan,
  type TurnRefusal,
  type TurnRefusalCode,
  type TurnResult,
  type TurnRunner,
  type TurnRunnerEvents,
  type TurnRunnerOptions,
  TurnsError,
  type TurnsErrorCode,
  type TurnStart,
} from '../src/index.js';

describe('TSDoc examples', () => {
  it('createTurnRunner', async () => {
    let world = { hp: 10 };
    const hit = defineTool({
      name: 'hit',
      description: 'Deals damage',
      args: z.object({ damage: z.number().int() }),
      reasons: [],
      execute: ({ damage }) => {
        world = { hp: world.hp - damage };
        return world.hp;
      },
    });
    const clock = createManualClock();
    const runner = createTurnRunner({
      store: createMemoryStore({ clock }),
      keyPrefix: 'game:1:',
      clock,
      gate: createToolGate({ tools: [hit], allowlist: ['hit'], clock }),
      capture: () => world,
      restore: (state) => {
        world = structuredClone(state);
      },
      prepare: (turn) => ({
        request: turn.input,
        generate: () => ({
          text: 'The goblin hits you.',
          tool_calls: [{ id: 'c1', tool: 'hit', args: { damage: 3 } }],
        }),
        readState: () => world,
        context: undefined,
        data: null,
      }),
      complete: (turn, outcome) => ({ turn: turn.turn, text: outcome.ok ? outcome.output.text : '' }),
    });
    await runner.open();
    const first = await runner.run('I open the door', { key: 'msg_1' });
    const again = await runner.run('I open the door', { key: 'msg_1' });
    expect([first.ok && first.record, again.ok && again.replayed, world.hp]).toEqual([
      { turn: 1, text: 'The goblin hits you.' },
      true,
      7,
    ]);
  });

  it('createTurnRunner with the defaults (system clock, turn_<nanoid> ids)', async () => {
    let hp = 10;
    const runner = createTurnRunner({
      store: createMemoryStore(),
      keyPrefix: 'game:2:',
      gate: createToolGate({ tools: [], allowlist: [] }),
      capture: () => hp,
      restore: (state) => {
        hp = state;
      },
      prepare: (turn) => ({
        request: turn.input,
        generate: () => ({ text: 'ok' }),
        readState: () => hp,
        context: undefined,
        data: null,
      }),
      complete: (turn) => turn.turnId,
    });
    await runner.open();
    const result = await runner.run('hello');
    expect(result.ok && result.record).toMatch(/^turn_/);
  });

  it('TurnRunner', async () => {
    async function play(runner: TurnRunner<string, { hp: number }, string, string, null>, line: string) {
      const result = await runner.run(line);
      return result.ok ? result.record : `refused (${result.code})`;
    }
    const runner = createTurnRunner({
      store: createMemoryStore(),
      keyPrefix: 'g:',
      gate: createToolGate({ tools: [], allowlist: [] }),
      capture: () => ({ hp: 1 }),
      restore: () => {},
      prepare: (turn: { input: string }) => ({
        request: turn.input,
        generate: () => ({ text: 'ok' }),
        readState: () => null,
        context: undefined,
        data: null,
      }),
      complete: () => 'played',
    });
    await runner.open();
    expect(await play(runner, 'go')).toBe('played');
  });

  it('TurnsError, TURNS_ERROR_CODES and TurnsErrorCode', () => {
    let caught: unknown;
    try {
      createTurnRunner({
        store: createMemoryStore(),
        keyPrefix: '',
        gate: createToolGate({ tools: [], allowlist: [] }),
        capture: () => null,
        restore: () => {},
        prepare: () => ({
          request: '',
          generate: () => ({ text: '' }),
          readState: () => null,
          context: undefined,
          data: undefined,
        }),
        complete: () => null,
      });
    } catch (err) {
      caught = err;
    }
    expect(isParleyError(caught, 'invalid_argument')).toBe(true);
    expect(caught).toBeInstanceOf(TurnsError);
    expect(TURNS_ERROR_CODES.includes('turn_failed')).toBe(true);
    const code: TurnsErrorCode = 'not_opened';
    expect(code).toBe('not_opened');
  });

  it('DEFAULT_TURN_TIMEOUT_MS, DEFAULT_JOURNAL_TTL_MS and MAX_KEY_LENGTH', () => {
    expect(MAX_KEY_LENGTH).toBe(256);
    expect(MAX_INPUT_LENGTH).toBe(65536);
    expect(DEFAULT_TURN_TIMEOUT_MS).toBe(300000);
    expect(DEFAULT_JOURNAL_TTL_MS).toBe(604800000);
  });

  it('TURN_REFUSAL_CODES, TurnRefusalCode and TurnRefusal', () => {
    expect(TURN_REFUSAL_CODES.includes('key_reused')).toBe(true);
    const code: TurnRefusalCode = 'busy';
    const refusal: TurnRefusal<'game_over'> = {
      ok: false,
      code: 'game_over',
      message: 'The game is over',
      reason: 'The game is over',
    };
    expect([code, refusal.code]).toEqual(['busy', 'game_over']);
  });

  it('TurnCheckpoint, TurnStart and TurnPlan', async () => {
    const hpOf = (checkpoint: TurnCheckpoint<{ hp: number }>) => checkpoint.state.hp;
    expect(
      hpOf({
        turn: 1,
        turnId: 't1',
        state: { hp: 4 },
        gate: createToolGate({ tools: [], allowlist: [] }).snapshot(),
      }),
    ).toBe(4);
    const label = (turn: TurnStart<string>) => `${turn.turnId} (#${turn.turn}): ${turn.input}`;
    expect(
      label({ input: 'go', turnId: 't1', turn: 1, key: 't1', startedAt: 0, branchCommitted: false }),
    ).toBe('t1 (#1): go');
    const plan: TurnPlan<{ hp: number }, string, undefined, null> = {
      request: 'The goblin attacks',
      generate: () => ({ text: 'The goblin misses.' }),
      readState: () => ({ hp: 20 }),
      context: undefined,
      data: null,
    };
    expect(await plan.readState()).toEqual({ hp: 20 });
  });

  it('TurnRunnerOptions, TurnResult, TurnCheckpointResult, TurnOpenResult and TurnRunnerEvents', () => {
    type Options = TurnRunnerOptions<string, { hp: number }, { hp: number }, string, string, undefined, null>;
    const timeout: Options['turnTimeoutMs'] = 60_000;
    const say = (result: TurnResult<string, string, null>) =>
      result.ok ? result.record : `refused: ${result.code}`;
    const taken = (result: TurnCheckpointResult) => result.ok || result.code === 'disabled';
    const describeOpen = (opened: TurnOpenResult) => (opened.resumed ? `resumed at ${opened.turnId}` : 'new');
    const lines: string[] = [];
    const log = (e: TurnRunnerEvents['committed']) => lines.push(`${e.turnId} committed`);
    log({ turnId: 't1', turn: 1, key: 't1', ok: true });
    expect([
      timeout,
      say({ ok: false, code: 'busy', message: '', reason: '' }),
      taken({ ok: false, code: 'disabled', message: '', reason: '' }),
      describeOpen({ resumed: true, turn: 2, turnId: 't2' }),
      lines,
    ]).toEqual([60_000, 'refused: busy', true, 'resumed at t2', ['t1 committed']]);
  });
});
