import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createToolGate,
  definePolicy,
  defineTool,
  type ToolBatchResult,
  type ToolCallProposal,
  type ToolGate,
  type CreatedToolGate,
  type ToolRunOptions,
  type ToolRunOptionsWithoutContext,
  toLoopGate,
} from '../src/index.js';

const move = defineTool({
  name: 'move',
  description: 'Moves',
  args: z.object({ to: z.string() }),
  execute: (args) => ({ area: args.to }),
});
const calls: readonly ToolCallProposal[] = [{ id: 'c1', tool: 'move', args: { to: 'hall' } }];

describe('the context of a batch', () => {
  it('may be left out for a gate created with no policies', () => {
    const gate = createToolGate({ tools: [move], allowlist: ['move'] });
    expectTypeOf(gate.process(calls, { turn: 1 })).resolves.toEqualTypeOf<ToolBatchResult>();
    gate.process(calls, { turn: 1, context: undefined });
    gate.process(calls, { turn: 1, sessionKey: 'feishu:oc_1', requester: 'ou_alice' });
    // @ts-expect-error the turn is still required
    gate.process(calls, {});
  });

  it('may be left out when no policy reads a typed context', () => {
    const gate = createToolGate({
      tools: [move],
      allowlist: ['move'],
      policies: [{ name: 'never_moon', tools: ['move'], check: ({ args }) => args !== 'moon' }],
    });
    gate.process(calls, { turn: 1 });
  });

  it('may be left out when the context type admits undefined', () => {
    const gate = createToolGate({
      tools: [move],
      allowlist: ['move'],
      policies: [
        {
          name: 'lock',
          check: ({ context }: { context: { locked: boolean } | undefined }) => context?.locked !== true,
        },
      ],
    });
    gate.process(calls, { turn: 1 });
    gate.process(calls, { turn: 1, context: { locked: false } });
  });

  it('is required when a policy reads a typed context', () => {
    const gate = createToolGate({
      tools: [move],
      allowlist: ['move'],
      policies: [definePolicy(move, ({ context }: { context: { locked: boolean } }) => !context.locked)],
    });
    gate.process(calls, { turn: 1, context: { locked: true } });
    // @ts-expect-error the policy needs the context
    gate.process(calls, { turn: 1 });
    // @ts-expect-error undefined is not the policy's context
    gate.process(calls, { turn: 1, context: undefined });
    // @ts-expect-error a context of another shape
    gate.process(calls, { turn: 1, context: { locked: 'yes' } });
  });

  it('is typed by CreatedToolGate, which a ToolGate-typed slot accepts', () => {
    const gate = createToolGate({ tools: [move], allowlist: ['move'] });
    expectTypeOf(gate).toEqualTypeOf<CreatedToolGate<'move', unknown>>();
    const slot: ToolGate<string, { phase: string }> = gate;
    const run: ToolRunOptionsWithoutContext = { turn: 2 };
    gate.process(calls, run);
    // @ts-expect-error the ToolGate interface itself always takes the context
    slot.process(calls, run);
  });

  it('is required by a gate annotated with a context that excludes undefined', () => {
    const requires = (gate: ToolGate<string, { phase: string }>): void => {
      // @ts-expect-error the annotated gate needs its context
      gate.process(calls, { turn: 1 });
    };
    expectTypeOf(requires).parameter(0).toEqualTypeOf<ToolGate<string, { phase: string }>>();
  });

  it('compiles in code generic over the context type', () => {
    async function runTurn<TContext>(
      gate: ToolGate<string, TContext>,
      turn: number,
      context: TContext,
    ): Promise<ToolBatchResult> {
      const run: ToolRunOptions<TContext> = { turn, context };
      await gate.process(calls, run);
      // @ts-expect-error a generic context may be required, so it cannot be left out
      await gate.process(calls, { turn });
      return gate.process(calls, { turn, context, signal: undefined });
    }
    function wrap<TContext>(gate: ToolGate<string, TContext>): ToolGate<string, TContext> {
      return gate;
    }
    function keep<TGate extends ToolGate>(gate: TGate): TGate {
      return gate;
    }
    const untyped = createToolGate({ tools: [move], allowlist: ['move'] });
    const typed = createToolGate({
      tools: [move],
      allowlist: ['move'],
      policies: [{ name: 'lock', check: ({ context }: { context: { locked: boolean } }) => !context.locked }],
    });
    expectTypeOf(runTurn(untyped, 1, undefined)).resolves.toEqualTypeOf<ToolBatchResult>();
    expectTypeOf(runTurn(typed, 1, { locked: false })).resolves.toEqualTypeOf<ToolBatchResult>();
    // @ts-expect-error the typed gate's context
    runTurn<{ locked: boolean }>(typed, 1, undefined);
    wrap(untyped).process(calls, { turn: 1, context: undefined });
    wrap(typed).process(calls, { turn: 1, context: { locked: true } });
    keep(untyped).process(calls, { turn: 1 });
    // @ts-expect-error kept as created: the typed gate needs its context
    keep(typed).process(calls, { turn: 1 });
    const loopGate = toLoopGate(untyped, (loop: { state: { turn: number } }) => ({ turn: loop.state.turn }));
    expectTypeOf(loopGate).returns.resolves.toEqualTypeOf<ToolBatchResult>();
    // @ts-expect-error the typed gate's context cannot be left out of the loop's run options
    toLoopGate(typed, (loop: { state: { turn: number } }) => ({ turn: loop.state.turn }));
  });
});
