// A hand-written tool gate with Parley's at-most-once guarantee and no Parley piece inside, shared
// by the tools suite (as a reference row) and the turns suite (inside the hand-written turn loop).
import type { z } from 'zod';

/** One tool as the hand-written gate knows it: its zod schema and its executor. */
export interface HandTool {
  readonly args: z.ZodType;
  readonly execute: (args: never) => unknown;
}

/** One remembered call: its tool, the arguments zod returned and what it answered. */
interface Ran {
  readonly tool: string;
  readonly args: unknown;
  readonly answer: HandAnswer;
}

export type HandAnswer =
  | { readonly id: string; readonly ok: true; readonly result: unknown }
  | { readonly id: string; readonly ok: false; readonly code: string };

/**
 * `process(call, turn)`: the allowlist as a `Set`, zod `safeParse` of the arguments, the executor,
 * and at most one run per call id in a turn. A repeated id is answered from memory when its tool
 * and arguments are the same and refused `call_id_reused` when they are not; the canonical text of
 * the arguments (JSON of what zod returned, keys in schema order) is written only then. The last
 * `keepTurns` turns are remembered.
 */
export function createHandGate(tools: Readonly<Record<string, HandTool>>, keepTurns = 2) {
  const allowed = new Set(Object.keys(tools));
  const turns = new Map<number, Map<string, Ran>>();
  let latest = 0;
  const memoryOf = (turn: number): Map<string, Ran> => {
    let memory = turns.get(turn);
    if (memory === undefined) {
      memory = new Map();
      turns.set(turn, memory);
      if (turn > latest) {
        latest = turn;
        turns.delete(turn - keepTurns);
      }
    }
    return memory;
  };
  return {
    async process(call: { id: string; tool: string; args: unknown }, turn: number): Promise<HandAnswer> {
      const memory = memoryOf(turn);
      const tool = allowed.has(call.tool) ? tools[call.tool] : undefined;
      if (tool === undefined) return { id: call.id, ok: false, code: 'unknown_tool' };
      const parsed = tool.args.safeParse(call.args);
      if (!parsed.success) return { id: call.id, ok: false, code: 'invalid_args' };
      const earlier = memory.get(call.id);
      if (earlier !== undefined) {
        const same =
          earlier.tool === call.tool && JSON.stringify(earlier.args) === JSON.stringify(parsed.data);
        return same ? earlier.answer : { id: call.id, ok: false, code: 'call_id_reused' };
      }
      const answer: HandAnswer = {
        id: call.id,
        ok: true,
        result: await tool.execute(parsed.data as never),
      };
      memory.set(call.id, { tool: call.tool, args: parsed.data, answer });
      return answer;
    },
  };
}
