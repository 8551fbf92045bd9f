import type { Proposal } from '@parley/conflict';
import { createMemoryStore } from '@parley/core';
import { createToolGate } from '@parley/tools';
import { describe, expectTypeOf, it } from 'vitest';
import { createTurnRunner, type TurnRefusalCode } from '../src/index.js';

const runner = createTurnRunner({
  store: createMemoryStore(),
  keyPrefix: 'g:',
  gate: createToolGate({ tools: [], allowlist: [] }),
  capture: () => ({ hp: 1 }),
  restore: () => {},
  accept: (input: { text: string }) =>
    input.text === '' ? { code: 'empty_input' as const, reason: 'say something' } : undefined,
  prepare: (turn) => ({
    request: turn.input.text,
    generate: (): Proposal => ({ text: 'ok' }),
    readState: () => null,
    context: undefined,
    data: { tokens: 0 },
  }),
  complete: (turn) => ({ turn: turn.turn }),
});

describe('createTurnRunner', () => {
  it('infers the input, the record, the data and the host refusal codes', async () => {
    expectTypeOf(runner.run).parameter(0).toEqualTypeOf<{ text: string }>();
    const result = await runner.run({ text: 'go' });
    if (!result.ok) expectTypeOf(result.code).toEqualTypeOf<TurnRefusalCode | 'empty_input'>();
    else if (result.replayed) expectTypeOf(result.record).toEqualTypeOf<{ turn: number }>();
    else expectTypeOf(result.data).toEqualTypeOf<{ tokens: number }>();
  });

  it('restores the state type it captures', async () => {
    const back = await runner.rollback('turn_0');
    if (back.ok) expectTypeOf(back.state.state).toEqualTypeOf<{ hp: number }>();
  });
});
