// One turn of a model-driven host on the memory store, with a proposal that makes one tool call.
//
// @parley/turns' runner: takes the head's lease and marks the turn open in the same write (a
// fenced kernel record in the store), puts the committed present back into the host when it is not there, runs
// the conflict loop with the tool gate (the gate's checks, its at-most-once memory, the conflict
// detectors on the reply), builds the record with `complete`, commits the state, the record, the
// gate's disabled tools and the end of the lease in one compare-and-set of the head, and
// takes a checkpoint (a snapshot record plus the checkpoint log, a kernel record).
//
// By hand, the same guarantees with no Parley piece: the head read from a `Map` store that keeps
// JSON text with a version (as a remote store would), the model's proposal awaited, each tool call
// through the hand-written at-most-once gate (`../hand-gate.ts`: allowlist, zod, a call id runs at
// most once per turn, a reused id with other content refused), the state copied, the head (turn,
// state, record) written with a compare-and-set on the version read, and a checkpoint
// record written (the one past the fifth deleted). It leaves out the lease (two hosts would be told
// apart only by the compare-and-set failing), the open-turn mark, the submission journal, the
// conflict detectors, the checkpoint log (so no rollback or undo), the gate's caps and records,
// and events.
// Next to a model call (hundreds of ms) both are noise; the goal guards against a regression.
import type { Proposal } from '@parley/conflict';
import { createMemoryStore } from '@parley/core';
import { createToolGate, defineTool } from '@parley/tools';
import { createTurnRunner } from '@parley/turns';
import { z } from 'zod';
import { createHandGate } from '../hand-gate.js';
import { suite } from '../lib.js';

const HAND = 'hand-written loop: at-most-once gate, CAS head, checkpoint record';

/** A `Map` store that keeps JSON text and a version per key, with a compare-and-set. */
function createMapStore() {
  const data = new Map<string, { version: number; json: string }>();
  let versions = 0;
  return {
    get(key: string): { version: number; value: unknown } | undefined {
      const slot = data.get(key);
      return slot === undefined ? undefined : { version: slot.version, value: JSON.parse(slot.json) };
    },
    compareAndSet(key: string, expected: number | null, value: unknown): number | undefined {
      if ((data.get(key)?.version ?? null) !== expected) return undefined;
      const version = ++versions;
      data.set(key, { version, json: JSON.stringify(value) });
      return version;
    },
    delete: (key: string): boolean => data.delete(key),
  };
}

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
    [HAND]: () => {
      const host = { state: { hp: 1_000_000, at: 'gate' } as Game };
      const gate = createHandGate({
        hit: {
          args: z.object({ damage: z.number().int() }),
          execute: ({ damage }: { damage: number }) => {
            host.state = { ...host.state, hp: host.state.hp - damage };
            return host.state.hp;
          },
        },
      });
      const proposal = {
        text: 'You lose 1 HP.',
        tool_calls: [{ id: 'c1', tool: 'hit', args: { damage: 1 } }],
      };
      const store = createMapStore();
      store.compareAndSet('g:head', null, { turn: 0, state: host.state, record: null });
      const maxCheckpoints = 5;
      return async () => {
        const head = store.get('g:head') as { version: number; value: { turn: number } };
        const turn = head.value.turn + 1;
        const generated = await Promise.resolve(proposal); // the model call
        const answers = [];
        for (const call of generated.tool_calls) answers.push(await gate.process(call, turn));
        const record = { turn, text: generated.text, calls: answers.length };
        const state = structuredClone(host.state);
        const value = { turn, state, record };
        if (store.compareAndSet('g:head', head.version, value) === undefined) throw new Error('conflict');
        store.compareAndSet(`g:checkpoint:${turn}`, null, { turn, state });
        store.delete(`g:checkpoint:${turn - maxCheckpoints}`);
        return record.turn;
      };
    },
  },
  goals: [
    {
      case: 'parley createTurnRunner',
      vs: HAND,
      slowerByAtMost: 4,
    },
  ],
});
