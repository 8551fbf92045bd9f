import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolExecuteContext } from '../src/index.js';

function createPing() {
  const contexts: unknown[] = [];
  const ping = defineTool({
    name: 'ping',
    description: 'Pings',
    args: z.object({}),
    execute: (_args, { context }: ToolExecuteContext<unknown, never>) => {
      contexts.push(context);
      return 'pong';
    },
  });
  return { ping, contexts };
}

describe('a batch without a context', () => {
  it('runs on a gate created with no policies, and executors get undefined', async () => {
    const { ping, contexts } = createPing();
    const gate = createToolGate({ tools: [ping], allowlist: ['ping'] });
    const result = await gate.process([{ id: 'c1', tool: 'ping', args: {} }], { turn: 1 });
    expect(result.executed).toMatchObject([{ id: 'c1', result: 'pong' }]);
    expect(result.feedback.failed_calls).toEqual([]);
    expect(contexts).toEqual([undefined]);
  });

  it('reaches a policy whose context admits undefined as undefined', async () => {
    const { ping } = createPing();
    const seen: unknown[] = [];
    const gate = createToolGate({
      tools: [ping],
      allowlist: ['ping'],
      policies: [
        {
          name: 'locked',
          check: ({ context }: { context: { locked: boolean } | undefined }) => {
            seen.push(context);
            return context?.locked !== true;
          },
        },
      ],
    });
    const free = await gate.process([{ id: 'c1', tool: 'ping', args: {} }], { turn: 1 });
    const locked = await gate.process([{ id: 'c2', tool: 'ping', args: {} }], {
      turn: 1,
      context: { locked: true },
    });
    expect(free.executed.map((call) => call.id)).toEqual(['c1']);
    expect(locked.feedback.failed_calls).toMatchObject([{ id: 'c2', code: 'not_allowed' }]);
    expect(seen).toEqual([undefined, { locked: true }]);
  });
});
