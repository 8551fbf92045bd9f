import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ResumedApproval } from '../src/index.js';
import {
  callStep,
  flush,
  proposeDrop,
  scriptedModel,
  sharedWorld,
  startProcess,
  textStep,
  toolOutputsSeen,
} from './helpers.js';

const ask: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table' }];
const where = { sessionKey: 'tg:g1', requester: 'alice' };

describe('a destructive call approved in chat', () => {
  it('stops at the approval request, asks in chat, and runs the tool once after 确认', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep('Dropped.')]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = await generateText({ model, tools, messages: ask });
    expect(first.content.map((part) => part.type)).toEqual(['tool-call', 'tool-approval-request']);
    expect(world.shop.dropped).toEqual([]);

    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    expect(host.channel.lastSent('g1')?.text).toContain('dropTable');
    const reply = await host.channel.say('g1', 'alice', '确认');
    expect(reply.status).toBe('intercepted'); // the answer never reaches the agent
    const answer = await answering;
    expect(answer).toMatchObject({ approved: true, resumedElsewhere: [] });
    expect(answer.decisions).toMatchObject([{ outcome: 'confirmed', decidedBy: 'alice' }]);

    const second = await generateText({ model, tools, messages: [...ask, ...answer.messages] });
    expect(world.shop.dropped).toEqual(['orders']);
    expect(second.text).toBe('Dropped.');
    expect(toolOutputsSeen(model)).toEqual([{ type: 'json', value: { dropped: 'orders' } }]);

    // The same history sent again does not run the tool a second time.
    await generateText({
      model: scriptedModel([textStep('ok')]),
      tools,
      messages: [...ask, ...answer.messages],
    });
    expect(world.shop.dropped).toEqual(['orders']);
    await host.bridge.close();
  });

  it('answers a declined approval as execution-denied with the reason, and nothing runs', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const { model, tools, first } = await proposeDrop(host, 'Not dropped.');
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    await host.channel.say('g1', 'alice', '取消');
    const answer = await answering;
    expect(answer.approved).toBe(false);
    await generateText({ model, tools, messages: [...ask, ...answer.messages] });
    expect(world.shop.dropped).toEqual([]);
    expect(toolOutputsSeen(model)).toEqual([
      { type: 'execution-denied', reason: 'The person declined (cancelled); the tool did not run.' },
    ]);
    await host.bridge.close();
  });

  it('does not run the tool when the answer comes after the deadline', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([
      callStep('call_1', 'dropTable', { table: 'orders' }),
      textStep('Too late.'),
    ]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = await generateText({ model, tools, messages: ask });
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    world.clock.advance(60_000);
    await host.channel.say('g1', 'alice', '确认');
    const answer = await answering;
    expect(answer.decisions).toMatchObject([{ outcome: 'timed_out' }]);
    await generateText({ model, tools, messages: [...ask, ...answer.messages] });
    expect(world.shop.dropped).toEqual([]);
    expect(toolOutputsSeen(model)).toEqual([
      { type: 'execution-denied', reason: 'Nobody confirmed in time (timed_out); the tool did not run.' },
    ]);
    expect(world.clock.pendingTimers()).toBe(0);
    await host.bridge.close();
  });

  it('refuses an approved call whose arguments were changed in the history (digest mismatch)', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep('Refused.')]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = await generateText({ model, tools, messages: ask });
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    await host.channel.say('g1', 'alice', '确认');
    const answer = await answering;
    const tampered = JSON.parse(
      JSON.stringify(answer.messages).replaceAll('"orders"', '"users"'),
    ) as ModelMessage[];
    await generateText({ model, tools, messages: [...ask, ...tampered] });
    expect(world.shop.dropped).toEqual([]);
    expect(toolOutputsSeen(model)).toMatchObject([
      {
        type: 'json',
        value: { tool_feedback: { failed_calls: [{ code: 'confirmation_declined', tool: 'dropTable' }] } },
      },
    ]);
    await host.bridge.close();
  });
});

describe('a restart between the proposal and the answer', () => {
  it('resumes the conversation exactly once on the restarted process, and the tool runs once', async () => {
    const world = sharedWorld();
    const before = await startProcess(world, {}, 'cfm_a');
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep('Dropped.')]);
    const first = await generateText({
      model,
      tools: before.bridge.tools({ turn: 1, context: { readOnly: false } }),
      messages: ask,
    });
    const prompted = before.nextPrompt();
    void before.bridge.approve(first, { ...where, state: { conversation: 'c1' } });
    await prompted;
    // Two more approvals wait: another table in the same chat (queued), and one in another chat.
    const other = scriptedModel([callStep('call_2', 'dropTable', { table: 'users' })]);
    const otherTools = before.bridge.tools({ turn: 1, context: { readOnly: false } });
    const queued = new Promise((resolve) => before.bridge.confirmGate.on('queued', resolve));
    void before.bridge.approve(await generateText({ model: other, tools: otherTools, messages: ask }), where);
    await queued;
    const elsewhere = before.nextPrompt();
    const third = scriptedModel([callStep('call_3', 'dropTable', { table: 'orders' })]);
    void before.bridge.approve(await generateText({ model: third, tools: otherTools, messages: ask }), {
      sessionKey: 'tg:g2',
      requester: 'alice',
    });
    await elsewhere;
    await before.bridge.close(); // the process dies while the person has not answered

    const resumed: unknown[] = [];
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    // Two processes start on the same store (a restart and another replica): whichever takes the
    // decision continues the conversation; the other does nothing.
    const replicas: Awaited<ReturnType<typeof startProcess>>[] = [];
    const onResume =
      (index: number) =>
      async ({ messages, state, decision }: ResumedApproval) => {
        resumed.push({ state, outcome: decision.outcome });
        const tools = replicas[index]?.bridge.tools({ turn: 1, context: { readOnly: false } }) ?? {};
        await generateText({ model, tools, messages: [...ask, ...messages] });
        done();
      };
    replicas.push(await startProcess(world, { onResume: onResume(0) }, 'cfm_b'));
    replicas.push(await startProcess(world, { onResume: onResume(1) }, 'cfm_c'));
    const [after, twin] = replicas as [
      Awaited<ReturnType<typeof startProcess>>,
      Awaited<ReturnType<typeof startProcess>>,
    ];
    expect(after.bridge.confirmGate.pending().every((entry) => entry.restored)).toBe(true);
    await after.channel.say('g1', 'alice', '确认');
    await finished;
    await flush();
    expect(resumed).toEqual([{ state: { conversation: 'c1' }, outcome: 'confirmed' }]);
    expect(world.shop.dropped).toEqual(['orders']);
    expect(model.doGenerateCalls).toHaveLength(2);
    await after.bridge.close();
    await twin.bridge.close();
  });

  it('tells the person the approval expired when no onResume is given, and nothing runs', async () => {
    const world = sharedWorld();
    const before = await startProcess(world, {}, 'cfm_a');
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' })]);
    const first = await generateText({
      model,
      tools: before.bridge.tools({ turn: 1, context: { readOnly: false } }),
      messages: ask,
    });
    const prompted = before.nextPrompt();
    void before.bridge.approve(first, where);
    await prompted;
    await before.bridge.close();
    const after = await startProcess(world, {}, 'cfm_b');
    const decided = new Promise((resolve) => after.bridge.confirmGate.on('decided', resolve));
    await after.channel.say('g1', 'alice', '确认');
    await decided;
    await flush();
    expect(after.channel.lastSent('g1')?.text).toContain('已过期');
    expect(world.shop.dropped).toEqual([]);
    await after.bridge.close();
  });
});
