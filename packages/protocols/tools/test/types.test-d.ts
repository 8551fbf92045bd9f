import type { ToolGateLike, ToolGateResult } from '@parley/conflict';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createToolGate,
  definePolicy,
  defineTool,
  type FailedToolCall,
  type LoopGate,
  type ToolBatchResult,
  type ToolGate,
  type ToolNameOf,
  type ToolRefusalCode,
  toLoopGate,
} from '../src/index.js';

const move = defineTool({
  name: 'move',
  description: 'Moves',
  args: z.object({ actor_id: z.string(), to_area_id: z.string() }),
  reasons: ['area_locked', 'no_path'],
  execute: (args, { reject }) => {
    expectTypeOf(args).toEqualTypeOf<{ actor_id: string; to_area_id: string }>();
    // @ts-expect-error a reason the tool does not declare
    reject('made_up');
    return args.to_area_id === 'moon' ? reject('no_path') : { area: args.to_area_id };
  },
});
const ping = defineTool({
  name: 'ping',
  description: 'Pings',
  args: z.object({}),
  reasons: [],
  execute: () => 'pong',
});

describe('type inference', () => {
  it('takes a tool without reasons as one whose executor cannot refuse', () => {
    const quiet = defineTool({
      name: 'quiet',
      description: 'Cannot refuse',
      args: z.object({}),
      execute: (_args, { reject }) => {
        // @ts-expect-error no reason is declared, so none can be given
        reject('anything');
        return 'ok';
      },
    });
    expectTypeOf(quiet.reasons).toEqualTypeOf<readonly never[]>();
  });

  it('keeps literal tool names and reasons', () => {
    expectTypeOf(move.name).toEqualTypeOf<'move'>();
    expectTypeOf(move.reasons).toEqualTypeOf<readonly ('area_locked' | 'no_path')[]>();
    expectTypeOf<ToolNameOf<readonly [typeof move, typeof ping]>>().toEqualTypeOf<'move' | 'ping'>();
  });

  it('types the gate by its tool names and context', () => {
    const gate = createToolGate({
      tools: [move, ping],
      allowlist: ['move', 'ping'],
      policies: [
        {
          name: 'lock',
          tools: ['move'],
          check: ({ context }: { context: { locked: boolean } }) => !context.locked,
        },
      ],
    });
    expectTypeOf(gate).toEqualTypeOf<ToolGate<'move' | 'ping', { locked: boolean }>>();
    expectTypeOf(gate.process).returns.resolves.toEqualTypeOf<ToolBatchResult>();
    gate.disable('move', { turn: 3 });
    // @ts-expect-error not a registered tool
    gate.disable('fly', { turn: 3 });
    // @ts-expect-error until needs a turn or a time
    gate.disable('move', 3);
  });

  it('refuses an allowlist naming an unregistered tool at compile time', () => {
    // @ts-expect-error 'fly' is not registered
    createToolGate({ tools: [move], allowlist: ['move', 'fly'] });
    createToolGate({
      tools: [move],
      allowlist: ['move'],
      // @ts-expect-error a policy naming an unregistered tool
      policies: [{ name: 'p', tools: ['fly'], check: () => true }],
    });
  });

  it('types refusal codes as a closed union', () => {
    expectTypeOf<FailedToolCall['code']>().toEqualTypeOf<ToolRefusalCode>();
    expectTypeOf<FailedToolCall['status']>().toEqualTypeOf<'rejected' | 'error'>();
  });
});

describe('the @parley/conflict tool gate contract', () => {
  it('is satisfied by the adapted gate', () => {
    const gate = createToolGate({ tools: [move], allowlist: ['move'] });
    const loopGate = toLoopGate(
      gate,
      (loop: { state: { turn: number }; attempt: number; signal: AbortSignal | undefined }) => ({
        turn: loop.state.turn,
        context: undefined,
      }),
    );
    expectTypeOf(loopGate).toEqualTypeOf<LoopGate<{ turn: number }>>();
    expectTypeOf(loopGate).toExtend<ToolGateLike<{ turn: number }>>();
    expectTypeOf<ToolBatchResult>().toExtend<ToolGateResult>();
  });
});

describe('definePolicy', () => {
  it('types the arguments and the tool reason of a one-tool policy', () => {
    const policy = definePolicy(move, (input) => {
      expectTypeOf(input.args).toEqualTypeOf<{ actor_id: string; to_area_id: string }>();
      // @ts-expect-error no such argument
      input.args.from;
      return input.args.to_area_id === 'moon' ? { reason: 'too far', toolReason: 'no_path' } : true;
    });
    expectTypeOf(policy.tools).toEqualTypeOf<readonly 'move'[] | undefined>();
    // @ts-expect-error a reason move does not declare
    definePolicy(move, () => ({ reason: 'x', toolReason: 'made_up' }));
    const typedContext = definePolicy(
      move,
      ({ context }: { context: { locked: boolean } }) => !context.locked,
    );
    createToolGate({ tools: [move, ping], allowlist: ['move', 'ping'], policies: [typedContext] });
  });
});

describe('call identity options', () => {
  it('types repeatedContent, limits and the new refusal codes', () => {
    type Options = Parameters<typeof createToolGate>[0];
    expectTypeOf<Options['repeatedContent']>().toEqualTypeOf<'run' | 'replay' | 'refuse' | undefined>();
    expectTypeOf<
      'call_id_reused' | 'already_applied' | 'too_many_calls' | 'memory_full' | 'stale_turn'
    >().toMatchTypeOf<ToolRefusalCode>();
    // @ts-expect-error limits are numbers
    createToolGate({ tools: [ping], allowlist: ['ping'], limits: { maxBatchCalls: '3' } });
  });
});
