// What the head and the checkpoints keep of the tool gate: its disabled tools, and no remembered call
// (a turn's call ids are never asked for again once it committed). Records of the previous version,
// which kept the calls of their own turn, are still read.
import { createManualClock, createMemoryStore, createSequentialIds, type JsonValue } from '@parley/core';
import { createToolGate, defineTool, type ToolExecuteContext } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHost, type Host, hit, say, setup } from './helpers.js';

const NO_CALLS = { version: 1, turns: [], disabled: [] };

/** One remembered call of turn 1, as the previous version stored it in the head and the checkpoint. */
const REMEMBERED_C1 = {
  version: 1,
  turns: [
    {
      turn: 1,
      calls: [
        {
          id: 'c1',
          record: {
            id: 'c1',
            turn: 1,
            requested: { tool: 'hit', args: { damage: 3 } },
            ran: { tool: 'hit', args: { damage: 3 } },
            outcome: 'executed',
            replayed: false,
          },
          executed: { id: 'c1', tool: 'hit', args: { damage: 3 }, result: 17, replayed: false },
          content: '{"args":{"damage":3},"tool":"hit"}',
        },
      ],
    },
  ],
  disabled: [],
};

/** The records the previous version wrote after one turn that ran call `c1` (format 2 head). */
const PREVIOUS_VERSION: Record<string, JsonValue> = {
  'game:turns:head': {
    kind: 'parley.turns.head',
    version: 2,
    data: {
      turn: 1,
      turnId: 'turn_1',
      state: { hp: 17, log: ['turn_1: Attack'] },
      gate: REMEMBERED_C1,
      open: null,
      last: {
        key: 'turn_1',
        content: '{"actor":"aria","text":"Attack"}',
        turnId: 'turn_1',
        turn: 1,
        record: { turn: 1, text: 'x' },
        keyed: false,
      },
      journal: [],
    },
    lease: null,
    fence: 1,
    deadlineAt: null,
  },
  'game:checkpoint:turn_0:a': {
    kind: 'parley.checkpoint',
    id: 'turn_0',
    state: { turn: 0, turnId: 'turn_0', state: { hp: 20, log: [] }, gate: NO_CALLS },
  },
  'game:checkpoint:turn_1:b': {
    kind: 'parley.checkpoint',
    id: 'turn_1',
    state: { turn: 1, turnId: 'turn_1', state: { hp: 17, log: ['turn_1: Attack'] }, gate: REMEMBERED_C1 },
  },
  'game:checkpoints': {
    kind: 'parley.checkpoints',
    version: 2,
    data: {
      rev: 2,
      checkpoints: [
        { id: 'turn_0', at: 1000, label: 'start', ref: 'game:checkpoint:turn_0:a' },
        { id: 'turn_1', at: 1000, label: 'turn 1', ref: 'game:checkpoint:turn_1:b' },
      ],
      rollback: null,
      undo: null,
    },
    lease: null,
    fence: 0,
    deadlineAt: null,
  },
};

/** What a stored checkpoint keeps of the gate. */
async function checkpointGate(env: ReturnType<typeof setup>, id: string): Promise<unknown> {
  const log = await env.host.runner.log();
  const ref = log.ok ? log.checkpoints.find((c) => c.id === id)?.ref : undefined;
  const record = (await env.memory.get(ref ?? '')) as { state: { gate: unknown } } | undefined;
  return record?.state.gate;
}

describe('what the head and the checkpoints keep of the gate', () => {
  it('keeps no remembered call in the head or the checkpoint of a turn that ran one', async () => {
    const env = setup();
    await env.host.runner.open();
    env.host.replies.push(hit('c1', 3));
    expect(await env.host.runner.run(say('Attack'))).toMatchObject({ ok: true, turn: 1 });
    const head = (await env.memory.get('game:turns:head')) as { data: { gate: unknown } };
    expect(head.data.gate).toEqual(NO_CALLS);
    expect(await checkpointGate(env, 'turn_1')).toEqual(NO_CALLS);
    env.host.replies.push({ text: 'Nothing' });
    await env.host.runner.run(say('Wait'));
    const back = await env.host.runner.rollback('turn_1');
    expect(back.ok && back.state.gate).toEqual(NO_CALLS);
  });

  it('keeps the disabled tools in the head, and a new process gets them back', async () => {
    const clock = createManualClock({ now: 1_000 });
    const memory = createMemoryStore({ clock });
    const hitTool = defineTool({
      name: 'hit',
      description: 'Deals damage',
      args: z.object({ damage: z.number().int() }),
      reasons: [],
      execute: (args, { context }: ToolExecuteContext<Host>) => {
        context.state = { ...context.state, hp: context.state.hp - args.damage };
        context.effects += 1;
        return context.state.hp;
      },
    });
    const gateOf = () => createToolGate({ tools: [hitTool], allowlist: ['hit'], clock });
    const first = gateOf();
    const host = createHost(memory, clock, { gate: first });
    await host.runner.open();
    first.disable('hit', { turn: 5 }, 'stunned');
    host.replies.push(hit('c1', 3));
    expect(await host.runner.run(say('Attack'))).toMatchObject({ ok: true, turn: 1 });
    expect(host.effects).toBe(0); // refused: the tool is disabled
    const disabled = [{ tool: 'hit', until: { turn: 5 }, reason: 'stunned' }];
    expect(first.snapshot()).toEqual({ version: 1, turns: [], disabled });
    const head = (await memory.get('game:turns:head')) as { data: { gate: unknown } };
    expect(head.data.gate).toEqual({ version: 1, turns: [], disabled });
    const second = gateOf();
    await createHost(memory, clock, { gate: second }).runner.open();
    expect(second.disabled()).toEqual(disabled);
  });

  it('runs a call id once in its turn: a retry that reuses it with other content is refused, not run', async () => {
    const env = setup({ loop: { maxRetries: 1 } });
    await env.host.runner.open();
    const twice = (first: number, second: number) => ({
      text: 'Two blows',
      tool_calls: [
        { id: 'c1', tool: 'hit', args: { damage: first } },
        { id: 'c2', tool: 'hit', args: { damage: second } },
      ],
    });
    env.host.replies.push(twice(3, 50), twice(4, 1)); // c2 is fatal, so the loop asks again
    const result = await env.host.runner.run(say('Attack'));
    expect(result.ok && !result.replayed && result.outcome.ok).toBe(false);
    expect(env.host.effects).toBe(1); // c1 ran once; its reuse with other content was refused
    const head = (await env.memory.get('game:turns:head')) as { data: { state: { hp: number } } };
    expect(head.data.state.hp).toBe(17);
  });
});

describe('records of the previous version, which kept the calls of their own turn', () => {
  it('resumes from that head, runs the next turn and rolls back to that checkpoint', async () => {
    const clock = createManualClock({ now: 1_000 });
    const memory = createMemoryStore({ clock });
    for (const [key, value] of Object.entries(PREVIOUS_VERSION)) await memory.set(key, value);
    const host = createHost(memory, clock, { generateTurnId: createSequentialIds('next_') });
    expect(await host.runner.open()).toEqual({ resumed: true, turn: 1, turnId: 'turn_1' });
    expect(host.state).toEqual({ hp: 17, log: ['turn_1: Attack'] });
    host.replies.push(hit('c1', 1));
    expect(await host.runner.run(say('Again'))).toMatchObject({ ok: true, turn: 2 });
    expect(host.state.hp).toBe(16);
    const head = (await memory.get('game:turns:head')) as { data: { gate: unknown } };
    expect(head.data.gate).toEqual(NO_CALLS);
    const back = await host.runner.rollback('turn_1');
    expect(back).toMatchObject({ ok: true, id: 'turn_1', state: { gate: REMEMBERED_C1 } });
    expect(host.state.hp).toBe(17);
    host.replies.push(hit('c1', 2));
    expect(await host.runner.run(say('Other'))).toMatchObject({ ok: true, turn: 2 });
    expect(host.state.hp).toBe(15);
    expect(host.effects).toBe(2);
  });
});
