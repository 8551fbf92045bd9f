import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifySql, createToolGate, definePolicy, defineTool, toOpenAITools } from '../src/index.js';

describe('the README snippet', () => {
  it('refuses a move under the movement lock and exports the tool for OpenAI', async () => {
    const positions = new Map([['pc_1', 'hall']]);
    const move = defineTool({
      name: 'move',
      description: 'Moves an actor to an adjacent area',
      args: z.object({
        actor_id: z.string(),
        from_area_id: z.string(),
        to_area_id: z.string(),
        path_id: z.string().optional(),
      }),
      reasons: ['area_locked', 'not_there'],
      execute: (args, { reject }) => {
        if (positions.get(args.actor_id) !== args.from_area_id) return reject('not_there');
        positions.set(args.actor_id, args.to_area_id);
        return { area: args.to_area_id };
      },
    });
    const gate = createToolGate({
      tools: [move],
      allowlist: ['move'],
      policies: [
        {
          name: 'movement_lock',
          tools: ['move'],
          check: ({ context }: { context: { state: string } }) =>
            context.state === 'combat'
              ? { message: '区域移动锁未解除', toolReason: 'area_locked' }
              : undefined,
        },
      ],
    });
    const modelTools = toOpenAITools([move]);
    const { executed, feedback } = await gate.process(
      [
        {
          id: 'call_001',
          tool: 'move',
          args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' },
        },
      ],
      { turn: 1, context: { state: 'combat' } },
    );
    expect(modelTools[0]?.function.name).toBe('move');
    expect(executed.length).toBe(0);
    expect(feedback.failed_calls[0]?.reason).toBe('区域移动锁未解除');
    expect(positions.get('pc_1')).toBe('hall');
  });
});

describe('the README SQL risk snippet', () => {
  it('asks before a DELETE, runs a SELECT, and refuses SET before anyone is asked', async () => {
    const dataModify = defineTool({
      name: 'data_modify',
      description: 'Runs SQL on the shop database',
      args: z.object({ sql: z.string().max(400) }),
      reasons: ['session_control'],
      confirm: (args) => classifySql(args.sql).needsConfirmation,
      summarize: (args) => `${classifySql(args.sql).kind.toUpperCase()} · ${args.sql}`,
      execute: (args) => ({ ran: args.sql }),
    });
    const noSessionControl = definePolicy(
      dataModify,
      ({ args }) =>
        classifySql(args.sql).controlsSession
          ? { message: 'BEGIN, COMMIT, SET … are not allowed', toolReason: 'session_control' }
          : undefined,
      { name: 'no_session_control' },
    );
    const asked: string[] = [];
    const gate = createToolGate({
      tools: [dataModify],
      allowlist: ['data_modify'],
      policies: [noSessionControl],
      confirm: (request) => {
        asked.push(request.summary);
        return false;
      },
    });
    const result = await gate.process(
      [
        { id: 'c1', tool: 'data_modify', args: { sql: 'SET role admin' } },
        { id: 'c2', tool: 'data_modify', args: { sql: 'SELECT * FROM orders' } },
        { id: 'c3', tool: 'data_modify', args: { sql: 'DELETE FROM orders WHERE id = 3' } },
      ],
      { turn: 1, context: {} },
    );
    expect(result.feedback.failed_calls.map((f) => [f.id, f.code, f.tool_reason])).toEqual([
      ['c1', 'not_allowed', 'session_control'],
      ['c3', 'confirmation_declined', undefined],
    ]);
    expect(result.executed.map((call) => call.id)).toEqual(['c2']);
    expect(asked).toEqual(['DML · DELETE FROM orders WHERE id = 3']);
  });
});
