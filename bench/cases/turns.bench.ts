// One turn of a model-driven host on the memory store, with a proposal that makes one tool call:
// @parley/turns' runner (lease, conflict loop with the gate, record, commit, checkpoint; no journal
// entry, the turns have no submission key) against bare hand-wiring (a conflict loop with the gate,
// the state written to the Store, a checkpoint of the state only). The difference is what the
// durable turn costs: two compare-and-sets of the head, copies of the state, and the gate's
// snapshot twice and restore once per turn (each a JSON copy in @parley/tools, about 30 µs on the
// 2-core VM), so that a failed turn puts the gate back and the checkpoint holds its memory.
// Next to a model call (hundreds of ms) both are noise; the goal guards against a regression.
import { createCheckpoints } from '@parley/checkpoints';
import { createConflictLoop, type Proposal } from '@parley/conflict';
import { createMemoryStore, type JsonValue } from '@parley/core';
import { createToolGate, defineTool, toLoopGate } from '@parley/tools';
import { createTurnRunner } from '@parley/turns';
import { z } from 'zod';
import { suite } from '../lib.js';

interface Game {
  hp: number;
  at: string;
}

function makeHost() {
  const host = { state: { hp: 1_000_000, at: 'gate' } as Game };
  const hit = defineTool({
    name: 'hit',
    description: 'Deals damage',
    args: z.object({ damage: z.number().int() }),
    reasons: [],
    execute: ({ damage }) => {
      host.state = { ...host.state, hp: host.state.hp - damage };
      return host.state.hp;
    },
  });
  const gate = createToolGate({ tools: [hit], allowlist: ['hit'] });
  const proposal: Proposal = {
    text: 'You lose 1 HP.',
    tool_calls: [{ id: 'c1', tool: 'hit', args: { damage: 1 } }],
  };
  return { host, gate, proposal };
}

suite('turns: one turn with one tool call (memory store)', {
  cases: {
    'parley createTurnRunner': () => {
      const { host, gate, proposal } = makeHost();
      const runner = createTurnRunner({
        store: createMemoryStore(),
        keyPrefix: 'g:',
        gate,
        checkpoints: { maxCheckpoints: 5 },
        capture: () => host.state,
        restore: (state) => {
          host.state = state;
        },
        prepare: (turn: { input: string }) => ({
          request: turn.input,
          generate: () => proposal,
          readState: () => host.state,
          context: undefined,
          data: null,
        }),
        complete: (turn, outcome) => ({ turn: turn.turn, text: outcome.ok ? outcome.output.text : '' }),
      });
      const opened = runner.open();
      return async () => {
        await opened;
        const result = await runner.run('I attack');
        if (!result.ok) throw new Error(result.code);
        return result.turn;
      };
    },
    'hand-written loop + gate + store write + checkpoint': () => {
      const { host, gate, proposal } = makeHost();
      const store = createMemoryStore();
      const checkpoints = createCheckpoints<{ turn: number; state: Game }>({
        store,
        keyPrefix: 'g:',
        maxCheckpoints: 5,
      });
      let turn = 0;
      return async () => {
        turn += 1;
        await checkpoints.commit();
        const n = turn;
        const loop = createConflictLoop<Game>({
          gate: toLoopGate(gate, () => ({ turn: n, context: undefined })),
        });
        const outcome = await loop.run({
          input: 'I attack',
          generate: () => proposal,
          readState: () => host.state,
        });
        const record = { turn: n, text: outcome.ok ? outcome.output.text : '' };
        await store.set('g:state', host.state as unknown as JsonValue);
        await checkpoints.take(`turn_${n}`, { turn: n, state: structuredClone(host.state) });
        return record.turn;
      };
    },
  },
  goals: [
    {
      case: 'parley createTurnRunner',
      vs: 'hand-written loop + gate + store write + checkpoint',
      slowerByAtMost: 4,
    },
  ],
});
