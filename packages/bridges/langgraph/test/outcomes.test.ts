// What a node (and the model behind it) is told when the person could not be asked, and that a
// closed gate's answer never resumes a thread: the next process asks and resumes it.
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { graphResumeHandlers, runWithConfirmation } from '../src/index.js';
import { agentGraph, chat, closedAfterEach, resumeCollector, SESSION, toolMessages } from './helpers.js';

const open = closedAfterEach();

describe('a prompt that could not be sent', () => {
  it('answers the tool call confirmation_failed, never that the user did not confirm', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    talk.channel.failSends(1); // the chat platform refuses the prompt
    const { graph, table } = agentGraph([{ id: 'c1', name: 'delete_row', args: { id: 2 } }]);
    const result = await runWithConfirmation(
      graph,
      { messages: [new HumanMessage('drop row 2')] },
      { configurable: { thread_id: 'pf' } },
      { confirm: talk.confirm, ...SESSION },
    );
    const [message] = toolMessages(result);
    expect(message?.status).toBe('error');
    expect(message?.artifact).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_failed' }] },
    });
    expect(String(message?.content)).not.toContain('did not confirm');
    expect(table.runs.delete_row).toBe(0);
  });
});

describe('a gate closed while waiting', () => {
  it('never resumes the thread with its answer: the restarted process resumes it with the person’s', async () => {
    const checkpointer = new MemorySaver();
    const before = await chat();
    const { graph, table } = agentGraph([{ id: 'c1', name: 'delete_row', args: { id: 1 } }], {
      checkpointer,
      store: before.store,
      clock: before.clock,
    });
    const prompted = before.nextPrompt();
    const running = runWithConfirmation(
      graph,
      { messages: [new HumanMessage('drop row 1')] },
      { configurable: { thread_id: 'closing' } },
      { confirm: before.confirm, store: before.store, ...SESSION },
    );
    await prompted;
    await before.confirm.close(); // a clean shutdown while the person has not answered yet
    expect(toolMessages(await running)).toEqual([]); // the thread still waits on its interrupt
    expect(table.runs.delete_row).toBe(0);

    const { resumed, handled, onResumed } = resumeCollector();
    const handlers = graphResumeHandlers(graph, ['delete_row'], { store: before.store, onResumed });
    const after = await before.restart({ resume: handlers });
    open.push(after.confirm);
    await after.channel.say('g1', 'alice', '确认');
    await handled;
    expect(resumed).toMatchObject([{ resumed: true, threadId: 'closing' }]);
    const [message] = toolMessages((resumed[0] as { result: unknown }).result);
    expect(message?.content).toBe('{"deleted":1}');
    expect(table.runs.delete_row).toBe(1);
  });
});

describe('a restarted gate closed while the resumed run waits on its next confirmation', () => {
  it('tells onResumed the run stopped with the gate (closed), not that it was resumed elsewhere', async () => {
    const checkpointer = new MemorySaver();
    const before = await chat();
    const calls = [
      { id: 'c1', name: 'delete_row', args: { id: 1 } },
      { id: 'c2', name: 'delete_row', args: { id: 2 } },
    ];
    const { graph, table } = agentGraph(calls, { checkpointer, store: before.store, clock: before.clock });
    const prompted = before.nextPrompt();
    const running = runWithConfirmation(
      graph,
      { messages: [new HumanMessage('drop rows 1 and 2')] },
      { configurable: { thread_id: 'closing-twice' } },
      { confirm: before.confirm, store: before.store, ...SESSION },
    );
    await prompted; // c1's prompt is out
    await before.confirm.close();
    await running;

    const { resumed, handled, onResumed } = resumeCollector();
    const handlers = graphResumeHandlers(graph, ['delete_row'], { store: before.store, onResumed });
    const after = await before.restart({ resume: handlers });
    const next = after.nextPrompt();
    await after.channel.say('g1', 'alice', '确认'); // answers c1; the resumed run asks c2
    await next;
    await after.confirm.close(); // this process stops too, before c2 is answered
    await handled;
    expect(resumed).toMatchObject([{ resumed: false, code: 'closed' }]);
    expect(table.runs.delete_row).toBe(0);
  });
});
