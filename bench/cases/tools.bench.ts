import { createToolGate, defineTool } from '@parley/tools';
import { z } from 'zod';
import { suite } from '../lib.js';

// One allowed call per model output: the shape most tool-calling turns have.
const Args = z.object({ actor_id: z.string(), from_area_id: z.string(), to_area_id: z.string() });
const args = { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' };
const execute = (value: z.infer<typeof Args>): { area: string } => ({ area: value.to_area_id });

/**
 * The gate: checks the call's shape and size, its id against the turn's earlier ids (at most one
 * run per id), the allowlist and disabled tools, the arguments (zod, through Standard Schema),
 * runs the executor, remembers the outcome for the turn and returns executed + feedback + records.
 * Each call is in a turn of its own, so the remembered turns stay at `keepTurns`.
 */
function gateCase(): () => Promise<unknown> {
  const move = defineTool({
    name: 'move',
    description: 'Moves an actor',
    args: Args,
    reasons: [],
    execute: (value) => execute(value),
  });
  const gate = createToolGate({ tools: [move], allowlist: ['move'] });
  let turn = 0;
  return () => gate.process([{ id: 'call_1', tool: 'move', args }], { turn: ++turn, context: {} });
}

/**
 * By hand: the allowlist as a `Set`, zod `safeParse` of the arguments, the executor called, in an
 * async function; a refusal is a plain object. No id memory, no records, no events.
 */
function bareCase(): () => Promise<unknown> {
  const allowed = new Set(['move']);
  const run = async (call: { id: string; tool: string; args: unknown }): Promise<unknown> => {
    if (!allowed.has(call.tool)) return { id: call.id, code: 'unknown_tool' };
    const parsed = Args.safeParse(call.args);
    if (!parsed.success) return { id: call.id, code: 'invalid_args', issues: parsed.error.issues };
    return { id: call.id, result: await execute(parsed.data) };
  };
  return () => run({ id: 'call_1', tool: 'move', args });
}

suite('tools: one allowed call through the gate', {
  cases: {
    'parley gate.process': gateCase,
    'Set.has + zod safeParse + executor': bareCase,
  },
  goals: [{ case: 'parley gate.process', vs: 'Set.has + zod safeParse + executor', slowerByAtMost: 3 }],
});
