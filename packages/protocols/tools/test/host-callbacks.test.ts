import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolGateEvents, type ToolGateOptions } from '../src/index.js';

type Hook = 'throws' | 'rejects';
/** A hook that throws, or returns a rejected promise where the hook may return one. */
function fail<T>(how: Hook): () => T {
  return () => {
    if (how === 'throws') throw new Error('host bug');
    return Promise.reject(new Error('host bug')) as never;
  };
}

/** A `wipe` tool whose every host hook can be made to fail; `ran` counts executions. */
function wipeGate(
  broken: 'policy' | 'confirm' | 'confirm-predicate' | 'summarize' | 'execute' | 'repair' | 'message',
  how: Hook,
) {
  let ran = 0;
  const wipe = defineTool({
    name: 'wipe',
    description: 'Wipes a disk',
    args: z.object({ disk: z.string() }),
    reasons: [],
    confirm: broken === 'confirm-predicate' ? () => fail<boolean>('throws')() : true,
    ...(broken === 'summarize' ? { summarize: fail<string>('throws') } : {}),
    execute: () => {
      ran++;
      return broken === 'execute' ? fail<unknown>(how)() : 'wiped';
    },
  });
  const options: ToolGateOptions<readonly [typeof wipe], undefined> = {
    tools: [wipe],
    allowlist: ['wipe'],
    confirm: broken === 'confirm' ? fail<boolean>(how) : () => true,
    ...(broken === 'policy' ? { policies: [{ name: 'p', check: fail<undefined>(how) }] } : {}),
    ...(broken === 'repair' ? { repair: fail<undefined>(how) } : {}),
    ...(broken === 'message' ? { messages: { unknown_tool: fail<string>('throws') } } : {}),
  };
  const gate = createToolGate(options);
  const errors: ToolGateEvents['error'][] = [];
  gate.on('error', (event) => errors.push(event));
  return { gate, errors, ran: () => ran };
}

describe('host code that throws or rejects', () => {
  it.each([
    ['policy', 'throws', 'policy_error', 'policy', 0],
    ['policy', 'rejects', 'policy_error', 'policy', 0],
    ['confirm', 'throws', 'confirmation_failed', 'confirm', 0],
    ['confirm', 'rejects', 'confirmation_failed', 'confirm', 0],
    ['confirm-predicate', 'throws', 'confirmation_failed', 'confirm', 0],
    ['summarize', 'throws', 'confirmation_failed', 'confirm', 0],
    ['execute', 'throws', 'executor_error', 'execute', 1],
    ['execute', 'rejects', 'executor_error', 'execute', 1],
  ] as const)(
    '[CALLID-06] contains a %s hook that %s: %s, reported with stage %s, nothing unhandled',
    async (broken, how, code, stage, runs) => {
      const t = wipeGate(broken, how);
      const result = await t.gate.process([{ id: 'c1', tool: 'wipe', args: { disk: 'sda' } }], {
        turn: 1,
        context: undefined,
      });
      expect(result.feedback.failed_calls[0]).toMatchObject({ code, status: 'error' });
      expect(t.errors.map((event) => event.stage)).toEqual([stage]);
      expect(t.ran()).toBe(runs);
    },
  );

  it.each(['throws', 'rejects'] as const)(
    'contains a repair hook that %s and refuses the call as it stands',
    async (how) => {
      const t = wipeGate('repair', how);
      const result = await t.gate.process([{ id: 'c1', tool: 'wype', args: { disk: 'sda' } }], {
        turn: 1,
        context: undefined,
      });
      expect(result.feedback.failed_calls[0]?.code).toBe('unknown_tool');
      expect(result.records[0]?.repair?.outcome).toBe('failed');
      expect(t.errors.map((event) => event.stage)).toEqual(['repair']);
    },
  );

  it('[CALLID-06] falls back to the default text when a custom refusal message throws, and reports it', async () => {
    const t = wipeGate('message', 'throws');
    const result = await t.gate.process([{ id: 'c1', tool: 'wype', args: {} }], {
      turn: 1,
      context: undefined,
    });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'unknown_tool', status: 'rejected' });
    expect(result.feedback.failed_calls[0]?.reason).toContain('There is no tool named "wype"');
    expect(t.errors).toEqual([expect.objectContaining({ stage: 'message', id: 'c1', tool: 'wype' })]);
  });

  it('falls back to the default text when a custom refusal message is not text', async () => {
    const wipe = defineTool({
      name: 'wipe',
      description: 'Wipes',
      args: z.object({}),
      reasons: [],
      execute: () => 1,
    });
    const gate = createToolGate({
      tools: [wipe],
      allowlist: ['wipe'],
      messages: { unknown_tool: () => 42 as unknown as string },
    });
    const result = await gate.process([{ id: 'c1', tool: 'wype', args: {} }], {
      turn: 1,
      context: undefined,
    });
    expect(result.feedback.failed_calls[0]?.reason).toContain('There is no tool named');
  });
});
