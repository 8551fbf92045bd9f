import { Agent, Runner, type ToolGuardrailFunctionOutput, type ToolInputGuardrailData } from '@openai/agents';
import { isParleyError, type JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentsRunOutcome, createAgentsBridge, toInputGuardrail } from '../src/index.js';
import {
  call,
  diedAfterProposal,
  flush,
  racingStore,
  changeData,
  ScriptedModel,
  say,
  sharedWorld,
  startProcess,
  toolOutputsSeen,
} from './helpers.js';

const where = { sessionKey: 'tg:g1', requester: 'alice' };

function guardrailInput(args: string, context: unknown = {}): ToolInputGuardrailData<unknown> {
  return {
    context: { context },
    agent: new Agent({ name: 'a' }),
    toolCall: { type: 'function_call', callId: 'c1', name: 'drop_table', arguments: args },
  } as unknown as ToolInputGuardrailData<unknown>; // the fields the guardrail reads
}

async function verdictOf(
  guardrail: { run(data: ToolInputGuardrailData<never>): Promise<ToolGuardrailFunctionOutput> },
  args: string,
  context?: unknown,
) {
  const output = await guardrail.run(guardrailInput(args, context) as ToolInputGuardrailData<never>);
  return output.behavior.type === 'rejectContent'
    ? (JSON.parse(output.behavior.message) as JsonValue)
    : output.behavior.type;
}

describe('toInputGuardrail', () => {
  const guardrail = toInputGuardrail<{ on?: boolean }>({
    name: 'custom',
    args: z.object({ table: z.string().min(1) }).or(z.string().max(0)),
    policies: [
      { name: 'other_tool', tools: ['other'], check: () => false },
      { name: 'off', check: ({ context }) => context.on !== false },
      {
        name: 'boom',
        check: ({ args }) => {
          if ((args as { table?: string }).table === 'x') throw new Error('boom');
          return true;
        },
      },
    ],
  });

  it('allows a valid call every policy allows', async () => {
    expect(guardrail.name).toBe('custom');
    expect(await verdictOf(guardrail, '{"table":"orders"}')).toBe('allow');
  });

  it.each([
    ['arguments that are not JSON', 'nope', { code: 'invalid_args', reason: 'The arguments are not JSON' }],
    ['arguments the schema refuses', '{"table":""}', { code: 'invalid_args', status: 'rejected' }],
    [
      'arguments refused at the root',
      '7',
      { code: 'invalid_args', reason: expect.stringContaining('(root)') },
    ],
    [
      'a policy answering false',
      '{"table":"orders"}',
      { code: 'not_allowed', reason: 'Refused by the policy "off"' },
      { on: false },
    ],
    ['a policy that throws (fail closed)', '{"table":"x"}', { code: 'policy_error', status: 'error' }],
  ] as [string, string, object, object?][])(
    'refuses %s with tool_feedback',
    async (_name, args, failed, context = {}) => {
      expect(await verdictOf(guardrail, args, context)).toMatchObject({
        tool_feedback: { failed_calls: [{ id: 'c1', tool: 'drop_table', ...failed }] },
      });
    },
  );
});

describe('createAgentsBridge edges', () => {
  it('throws invalid_argument without an agent or runner, and for a run without a run id', async () => {
    expect(() =>
      createAgentsBridge({ agent: null as never, runner: new Runner(), confirm: {} as never }),
    ).toThrowError(expect.objectContaining({ code: 'invalid_argument' }));
    const host = await startProcess(sharedWorld(), new ScriptedModel([]));
    const error = await host.bridge.run({ runId: '', input: 'x', ...where }).catch((e: unknown) => e);
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
    await host.bridge.close();
  });

  it('refuses a second run under a run id that waits for an answer (run_pending)', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([
      [call('c1', 'drop_table', { table: 'orders' })],
      [call('c2', 'drop_table', { table: 'users' })],
      [say('done')],
    ]);
    const host = await startProcess(world, model);
    const prompted = host.nextPrompt();
    const first = host.bridge.run({
      runId: 'r1',
      input: 'Drop orders',
      context: { readOnly: false },
      timeoutMs: 5_000,
      ...where,
    });
    await prompted;
    const error = await host.bridge
      .run({ runId: 'r1', input: 'Drop users', context: { readOnly: false }, ...where })
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'run_pending')).toBe(true);
    world.clock.advance(5_000); // the first one times out after its own wait
    expect((await first).status).toBe('completed');
    expect(world.dropped).toEqual([]);
    await host.bridge.close();
  });

  it('runs without a context, and a cancelled approval rejects the call with the reason', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([[call('c1', 'drop_table', { table: 'orders' })], [say('Cancelled.')]]);
    const host = await startProcess(world, model);
    const prompted = host.nextPrompt();
    const running = host.bridge.run({ runId: 'r1', input: 'Drop orders', ...where });
    await prompted;
    await host.channel.say('g1', 'alice', '取消');
    expect((await running).status).toBe('completed');
    expect(world.dropped).toEqual([]);
    expect(JSON.stringify(toolOutputsSeen(model))).toContain('did not confirm this call');
    await host.bridge.close();
  });

  it('rejects a call whose stored RunState was altered between the question and the answer', async () => {
    const world = sharedWorld();
    await diedAfterProposal(world);
    const key = 'parley:agents:run:r1';
    const record = (await world.store.get(key)) as { data: { state: string } }; // the kernel's envelope
    await world.store.set(key, {
      ...record,
      data: { ...record.data, state: record.data.state.replaceAll('orders', 'users') },
    } as unknown as JsonValue);

    const model = new ScriptedModel([[say('Refused.')]]);
    let done: (outcome: AgentsRunOutcome<{ readOnly: boolean }>) => void = () => {};
    const finished = new Promise<AgentsRunOutcome<{ readOnly: boolean }>>((resolve) => {
      done = resolve;
    });
    const after = await startProcess(world, model, { onResumed: ({ outcome }) => done(outcome) }, 'cfm_b');
    await after.channel.say('g1', 'alice', '确认');
    expect((await finished).status).toBe('completed');
    expect(world.dropped).toEqual([]);
    expect(JSON.stringify(toolOutputsSeen(model))).toContain('the approved arguments differ');
    await after.bridge.close();
  });

  it('asks about every interruption of a step, one prompt after the other, then resumes once', async () => {
    const world = sharedWorld();
    const two = [call('c1', 'drop_table', { table: 'orders' }), call('c2', 'drop_table', { table: 'users' })];
    const host = await startProcess(world, new ScriptedModel([two, [say('Both dropped.')]]));
    let prompted = host.nextPrompt();
    const running = host.bridge.run({
      runId: 'r1',
      input: 'Drop both',
      context: { readOnly: false },
      ...where,
    });
    await prompted;
    prompted = host.nextPrompt();
    await host.channel.say('g1', 'alice', '确认');
    await prompted;
    expect(world.dropped).toEqual([]);
    await host.channel.say('g1', 'alice', '确认');
    const outcome = await running;
    expect(outcome.status === 'completed' && outcome.result.finalOutput).toBe('Both dropped.');
    expect([...world.dropped].sort()).toEqual(['orders', 'users']);
    await host.bridge.close();
  });
});

describe('races with another replica on the shared store', () => {
  const otherRun = {
    kind: 'parley.openai-agents.run',
    version: 1,
    data: {
      runId: 'r1',
      state: '',
      status: 'waiting',
      sessionKey: 'tg:g9',
      requester: 'bob',
      callIds: [],
      rev: 1,
    },
    ...{ lease: null, fence: 0, deadlineAt: null },
  };
  it.each([
    ['the run record is written by another replica first', 'parley:agents:run:', () => otherRun, 0],
    [
      'another replica claims the answer first',
      'parley:agents:approval:',
      changeData((data) => ({ ...data, decisionId: 'cfm_other' })),
      1, // the first write of the approval stores it; the second claims it
    ],
    [
      'another replica resumes the run first',
      'parley:agents:run:',
      changeData((data) => ({ ...data, status: 'resuming', rev: Number(data.rev) + 1 })),
      1,
    ],
  ] as const)(
    'leaves the run to the other replica when %s, and the tool does not run here',
    async (_name, prefix, write, skip) => {
      const world = sharedWorld();
      const store = racingStore(world.store);
      const model = new ScriptedModel([[call('c1', 'drop_table', { table: 'orders' })], [say('done')]]);
      const host = await startProcess({ ...world, store }, model);
      store.raceNext(prefix, write, skip);
      const prompted = host.nextPrompt();
      const running = host.bridge.run({
        runId: 'r1',
        input: 'Drop orders',
        context: { readOnly: false },
        ...where,
      });
      const first = await Promise.race([prompted.then(() => 'prompted' as const), running]);
      if (first === 'prompted') await host.channel.say('g1', 'alice', '确认');
      expect(await running).toEqual({ status: 'elsewhere' });
      expect(world.dropped).toEqual([]);
      await host.bridge.close();
    },
  );

  it('checks the arguments only when no schema is given, and allows what the policies allow', async () => {
    const guardrail = toInputGuardrail({ policies: [] });
    expect((await guardrail.run(guardrailInput('{"table":"orders"}'))).behavior.type).toBe('allow');
  });
});

describe('a restart when the stored run is gone', () => {
  it('runs nothing and resumes nothing when the run record expired, even with the approval answered', async () => {
    const world = sharedWorld();
    const before = await startProcess(
      world,
      new ScriptedModel([
        [call('c1', 'drop_table', { table: 'orders' })],
        [call('c9', 'drop_table', { table: 'users' })],
      ]),
      {},
      'cfm_a',
    );
    let prompted = before.nextPrompt();
    void before.bridge.run({ runId: 'r1', input: 'Drop orders', context: { readOnly: false }, ...where });
    await prompted;
    prompted = before.nextPrompt();
    void before.bridge.run({
      runId: 'r2',
      input: 'Drop users',
      context: { readOnly: false },
      sessionKey: 'tg:g2',
      requester: 'alice',
    });
    await prompted;
    await before.bridge.close();
    await world.store.delete('parley:agents:run:r1'); // gone (expired, or removed by an operator)

    const resumed: unknown[] = [];
    const after = await startProcess(
      world,
      new ScriptedModel([]),
      { onResumed: (event) => void resumed.push(event) },
      'cfm_b',
    );
    const decided = new Promise((resolve) => after.bridge.confirmGate.on('decided', resolve));
    await after.channel.say('g1', 'alice', '确认');
    await decided;
    await flush(100);
    expect(resumed).toEqual([]);
    expect(world.dropped).toEqual([]);
    await after.bridge.close();
  });
});
