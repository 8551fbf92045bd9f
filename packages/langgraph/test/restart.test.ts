import { HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import type { ConfirmDecision } from '@parley/confirm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConfirmableGraph,
  type GraphResumed,
  graphResumeHandlers,
  runWithConfirmation,
} from '../src/index.js';
import { agentGraph, chat, rowTools, SESSION } from './helpers.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

const config = { configurable: { thread_id: 'thread-1' } };

/** The first process: it stops (crashes) after the proposal, before any answer comes back. */
async function proposeThenCrash() {
  const checkpointer = new MemorySaver();
  const before = await chat();
  const table = rowTools();
  const { graph } = agentGraph(
    [
      { id: 'c1', name: 'read_row', args: { id: 2 } },
      { id: 'c2', name: 'delete_row', args: { id: 1 } },
    ],
    { checkpointer, store: before.store, clock: before.clock, tools: table },
  );
  // Past the interrupt, the first process never gets to resume the thread: it has died.
  const crashing: ConfirmableGraph = {
    invoke: (input, options) =>
      input instanceof Command
        ? Promise.reject(new Error('process died'))
        : graph.invoke(input as never, options),
    getState: (options) => graph.getState(options),
  };
  const prompted = before.nextPrompt();
  const running = runWithConfirmation(crashing, { messages: [new HumanMessage('drop row 1')] }, config, {
    confirm: before.confirm,
    ...SESSION,
  });
  await prompted;
  await before.confirm.close();
  await expect(running).rejects.toThrow('process died');
  return { checkpointer, before, table };
}

describe('graphResumeHandlers (a restart between the proposal and the answer)', () => {
  it('resumes the thread from the checkpointer exactly once and runs the call once', async () => {
    const { checkpointer, before, table } = await proposeThenCrash();
    expect(table.runs).toEqual({ delete_row: 0, read_row: 1 });
    // The restarted process: same checkpointer, same stores, a new graph, tools node and gate.
    const { graph } = agentGraph([], {
      checkpointer,
      store: before.store,
      clock: before.clock,
      tools: table,
    });
    const resumed: GraphResumed[] = [];
    let done: () => void = () => {};
    const handled = new Promise<void>((resolve) => {
      done = resolve;
    });
    const handlers = graphResumeHandlers(graph, ['delete_row'], {
      onResumed: (event) => {
        resumed.push(event);
        done();
      },
    });
    const after = await before.restart({ resume: handlers });
    open.push(after.confirm);
    await after.channel.say('g1', 'alice', '确认');
    await handled;
    await after.channel.say('g1', 'alice', '确认');
    expect(resumed).toMatchObject([{ resumed: true, threadId: 'thread-1' }]);
    const messages = (resumed[0] as { result: { messages: ToolMessage[] } }).result.messages.filter(
      (message) => message.getType() === 'tool',
    );
    expect(messages.map((message) => message.content)).toEqual(['beta', '{"deleted":1}']);
    expect(table.runs).toEqual({ delete_row: 1, read_row: 1 });

    // The same decision handed over again (another replica, a retry): the interrupt is gone.
    await handlers.delete_row?.((resumed[0] as { decision: ConfirmDecision }).decision, after.confirm);
    expect(resumed.at(-1)).toMatchObject({ resumed: false, code: 'not_pending' });
    expect(table.runs.delete_row).toBe(1);
  });

  it('does not run the call when the restarted process hears the answer after the deadline', async () => {
    const { checkpointer, before, table } = await proposeThenCrash();
    const { graph } = agentGraph([], {
      checkpointer,
      store: before.store,
      clock: before.clock,
      tools: table,
    });
    const resumed: GraphResumed[] = [];
    const after = await before.restart({
      resume: graphResumeHandlers(graph, ['delete_row'], {
        onResumed: (event) => void resumed.push(event),
        timeoutMs: 60_000,
        maxRounds: 4,
      }),
    });
    open.push(after.confirm);
    const decided = new Promise((resolve) => after.confirm.on('decided', resolve));
    after.clock.advance(300_000);
    await decided;
    await after.channel.say('g1', 'alice', '确认');
    expect(table.runs.delete_row).toBe(0);
    expect(table.rows.has(1)).toBe(true);
  });

  it('reports a decision it cannot route, and refuses a missing graph', async () => {
    const { graph } = agentGraph([]);
    const talk = await chat();
    open.push(talk.confirm);
    const resumed: GraphResumed[] = [];
    const handlers = graphResumeHandlers(graph, ['x'], { onResumed: (event) => void resumed.push(event) });
    const decision = {
      id: 'cfm_x',
      sessionKey: 'feishu:g1',
      action: { name: 'x', args: { table: 'orders' }, digest: '00' },
      summary: 'x',
      requester: 'alice',
      outcome: 'confirmed',
      reason: 'reply',
      requestedAt: 0,
      decidedAt: 1,
    } as const;
    await handlers.x?.(decision, talk.confirm);
    await handlers.x?.({ ...decision, action: { ...decision.action, args: [] } }, talk.confirm);
    expect(resumed).toMatchObject([
      { resumed: false, code: 'unknown_decision' },
      { resumed: false, code: 'unknown_decision' },
    ]);
    expect(() => graphResumeHandlers(undefined as never, [])).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
