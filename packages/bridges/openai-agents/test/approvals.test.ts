import { Runner } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import type { AgentsRunOutcome } from '../src/index.js';
import {
  call,
  diedAfterProposal,
  flush,
  promptedRun,
  ScriptedModel,
  say,
  sharedWorld,
  startProcess,
  toolOutputsSeen,
} from './helpers.js';

const where = { sessionKey: 'tg:g1', requester: 'alice' };

describe('a needsApproval interruption answered in chat', () => {
  it('asks in chat, runs the tool once after 确认, and completes the run', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([
      [call('call_1', 'drop_table', { table: 'orders' })],
      [say('Dropped orders.')],
    ]);
    const { host, running } = await promptedRun(world, model);
    expect(host.channel.lastSent('g1')?.text).toContain('drop_table');
    expect(world.dropped).toEqual([]);
    expect((await host.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    const outcome = await running;
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result.finalOutput).toBe('Dropped orders.');
    expect(world.dropped).toEqual(['orders']);
    expect(toolOutputsSeen(model)).toMatchObject([{ type: 'text', text: 'dropped orders' }]);
    await host.bridge.close();
  });

  it('rejects the call with the reason when the answer comes after the deadline; the tool does not run', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([
      [call('call_1', 'drop_table', { table: 'orders' })],
      [say('Not dropped.')],
    ]);
    const { host, running } = await promptedRun(world, model);
    world.clock.advance(60_000);
    await host.channel.say('g1', 'alice', '确认');
    const outcome = await running;
    expect(outcome.status).toBe('completed');
    expect(world.dropped).toEqual([]);
    expect(JSON.stringify(toolOutputsSeen(model))).toContain('did not confirm this call in time');
    expect(world.clock.pendingTimers()).toBe(0);
    await host.bridge.close();
  });

  it('feeds a policy refusal back to the model as the tool output, and nobody is asked', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([
      [call('call_1', 'drop_table', { table: 'orders' })],
      [say('Read-only, sorry.')],
    ]);
    const host = await startProcess(world, model);
    const outcome = await host.bridge.run({
      runId: 'r1',
      input: 'Drop orders',
      context: { readOnly: true },
      ...where,
    });
    expect(outcome.status).toBe('completed');
    expect(host.channel.outbox()).toEqual([]);
    expect(world.dropped).toEqual([]);
    const seen = toolOutputsSeen(model) as { text: string }[];
    expect(JSON.parse(seen[0]?.text ?? '{}')).toMatchObject({
      tool_feedback: {
        failed_calls: [
          {
            id: 'call_1',
            tool: 'drop_table',
            code: 'not_allowed',
            reason: 'The shop is in read-only mode',
            tool_reason: 'read_only',
          },
        ],
      },
    });
    await host.bridge.close();
  });
});

describe('guardrails at execution (the SDK default)', () => {
  it('asks first, then refuses at execution when the state changed, and the tool does not run', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([[call('call_1', 'drop_table', { table: 'orders' })], [say('Refused.')]]);
    const context = { readOnly: false };
    const host = await startProcess(world, model, { runner: new Runner({ tracingDisabled: true }) });
    const prompted = host.nextPrompt();
    const running = host.bridge.run({ runId: 'r1', input: 'Drop orders', context, ...where });
    await prompted;
    world.frozen = true; // the shop was frozen while the person was deciding
    await host.channel.say('g1', 'alice', '确认');
    expect((await running).status).toBe('completed');
    expect(world.dropped).toEqual([]);
    expect(JSON.stringify(toolOutputsSeen(model))).toContain('not_allowed');
    await host.bridge.close();
  });
});

describe('a restart between the interruption and the answer', () => {
  it('resumes the run from the stored RunState exactly once, and the tool runs once', async () => {
    const world = sharedWorld();
    await diedAfterProposal(world); // the process dies while the person has not answered

    const outcomes: AgentsRunOutcome<{ readOnly: boolean }>[] = [];
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const onResumed = ({ outcome }: { outcome: AgentsRunOutcome<{ readOnly: boolean }> }) => {
      outcomes.push(outcome);
      done();
    };
    const after = await startProcess(
      world,
      new ScriptedModel([[say('Dropped orders.')]]),
      { onResumed },
      'cfm_b',
    );
    const twin = await startProcess(
      world,
      new ScriptedModel([[say('Dropped orders.')]]),
      { onResumed },
      'cfm_c',
    );
    await after.channel.say('g1', 'alice', '确认');
    await finished;
    await flush();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.status === 'completed' && outcomes[0].result.finalOutput).toBe('Dropped orders.');
    expect(world.dropped).toEqual(['orders']);
    await after.bridge.close();
    await twin.bridge.close();
  });

  it('continues once when the waiting process and a replica that took over both see the answer', async () => {
    const world = sharedWorld();
    const model = new ScriptedModel([
      [call('call_1', 'drop_table', { table: 'orders' })],
      [say('Dropped orders.')],
    ]);
    const before = await startProcess(world, model, {}, 'cfm_a');
    const prompted = before.nextPrompt();
    const waiting = before.bridge.run({
      runId: 'r1',
      input: 'Drop orders',
      context: { readOnly: false },
      ...where,
    });
    await prompted;
    const resumed: AgentsRunOutcome<{ readOnly: boolean }>[] = [];
    const replica = await startProcess(
      world,
      new ScriptedModel([[say('Dropped orders.')]]),
      { onResumed: ({ outcome }) => void resumed.push(outcome) },
      'cfm_b',
    );
    await replica.channel.say('g1', 'alice', '确认');
    const here = await waiting;
    await flush(200);
    const completed = [here, ...resumed].filter((outcome) => outcome.status === 'completed');
    expect(completed).toHaveLength(1);
    expect(world.dropped).toEqual(['orders']);
    await before.bridge.close();
    await replica.bridge.close();
  });
});
