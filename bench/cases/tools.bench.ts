import { createToolGate, defineTool } from '@parley/tools';
import { z } from 'zod';
import { createHandGate } from '../hand-gate.js';
import { suite } from '../lib.js';

// One allowed call per model output: the shape most tool-calling turns have.
const Args = z.object({ actor_id: z.string(), from_area_id: z.string(), to_area_id: z.string() });
const args = { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' };
const execute = (value: z.infer<typeof Args>): { area: string } => ({ area: value.to_area_id });

/**
 * The gate: checks the call's shape, that its arguments are JSON and under `maxCallBytes`, its id
 * against the turn's earlier ids (at most one run per id), the allowlist and disabled tools, the
 * arguments (zod, through Standard Schema), runs the executor, remembers the outcome for the turn
 * (within `maxRememberedCalls` / `maxRememberedBytes`), emits `executed` and returns executed +
 * feedback + records. Each call is in a turn of its own, so the remembered turns stay at `keepTurns`.
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

/**
 * By hand, with the gate's at-most-once guarantee (`../hand-gate.ts`): the bare work above, plus
 * a memory of the turn's call ids (a `Map` per turn, the last two turns kept) in which the call is
 * looked up and then remembered with the arguments zod returned; a repeated id is answered from
 * memory, or refused when its canonical text (written only then) differs. No JSON or size check of
 * the call, no caps on what is remembered, no records, no events, no disabled tools.
 */
function handGateCase(): () => Promise<unknown> {
  const gate = createHandGate({ move: { args: Args, execute } });
  let turn = 0;
  return () => gate.process({ id: 'call_1', tool: 'move', args }, ++turn);
}

suite('tools: one allowed call through the gate', {
  cases: {
    'parley gate.process': gateCase,
    'Set.has + zod safeParse + executor': bareCase,
    'hand-written at-most-once gate': handGateCase,
  },
  goals: [
    { case: 'parley gate.process', vs: 'Set.has + zod safeParse + executor', slowerByAtMost: 3 },
    // a reference: what the at-most-once memory costs when written by hand
    { case: 'parley gate.process', vs: 'hand-written at-most-once gate' },
  ],
});
