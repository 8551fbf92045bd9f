import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createGatedToolNode, runWithConfirmation } from '../src/index.js';
import { agentGraph, chat, closedAfterEach, rowTools, SESSION, toolMessages } from './helpers.js';

const open = closedAfterEach();

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe('createGatedToolNode with runWithConfirmation', () => {
  it('runs a destructive call once the person confirms, and a safe call exactly once across the resume', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    talk.answerWith('确认');
    const { graph, table } = agentGraph([
      { id: 'c1', name: 'read_row', args: { id: 1 } },
      { id: 'c2', name: 'delete_row', args: { id: 1 } },
    ]);
    const result = await runWithConfirmation(
      graph,
      { messages: [new HumanMessage('drop row 1')] },
      thread('t1'),
      {
        confirm: talk.confirm,
        ...SESSION,
      },
    );
    expect(
      toolMessages(result).map((message) => [message.tool_call_id, message.content, message.status]),
    ).toEqual([
      ['c1', 'alpha', 'success'],
      ['c2', '{"deleted":1}', 'success'],
    ]);
    expect(table.runs).toEqual({ delete_row: 1, read_row: 1 });
    expect(talk.channel.sent.map((message) => message.text).join('\n')).toContain('DELETE row 1');
  });

  it('returns a declined call as an error ToolMessage with the feedback, without running it', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    talk.answerWith('取消');
    const { graph, table } = agentGraph([{ id: 'c1', name: 'delete_row', args: { id: 2 } }]);
    const result = await runWithConfirmation(
      graph,
      { messages: [new HumanMessage('drop row 2')] },
      thread('t2'),
      {
        confirm: talk.confirm,
        ...SESSION,
      },
    );
    const [message] = toolMessages(result);
    expect(message?.status).toBe('error');
    expect(message?.artifact).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_declined' }] },
    });
    expect(table.runs.delete_row).toBe(0);
    expect(table.rows.has(2)).toBe(true);
  });

  it('refuses unknown tools and bad arguments as ToolMessages the model reads, asking nobody', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    const { graph, table } = agentGraph([
      { id: 'c1', name: 'drop_table', args: {} },
      { id: 'c2', name: 'delete_row', args: { id: 'one' } },
    ]);
    const result = await runWithConfirmation(graph, { messages: [new HumanMessage('x')] }, thread('t3'), {
      confirm: talk.confirm,
      ...SESSION,
    });
    const messages = toolMessages(result);
    expect(
      messages.map(
        (message) =>
          (message.artifact as { tool_feedback: { failed_calls: { code: string }[] } }).tool_feedback
            .failed_calls[0]?.code,
      ),
    ).toEqual(['unknown_tool', 'invalid_args']);
    expect(String(messages[0]?.content)).toContain('read_row');
    expect(talk.channel.sent).toEqual([]);
    expect(table.runs).toEqual({ delete_row: 0, read_row: 0 });
  });

  it('does not run the call when the answer comes after the deadline', async () => {
    const talk = await chat();
    open.push(talk.confirm);
    const { graph, table } = agentGraph([{ id: 'c1', name: 'delete_row', args: { id: 1 } }]);
    const prompted = talk.nextPrompt();
    const running = runWithConfirmation(graph, { messages: [new HumanMessage('x')] }, thread('t4'), {
      confirm: talk.confirm,
      ...SESSION,
      timeoutMs: 60_000,
    });
    await prompted;
    talk.clock.advance(60_000);
    const result = await running;
    await talk.channel.say('g1', 'alice', '确认');
    expect(toolMessages(result)[0]?.artifact).toMatchObject({
      tool_feedback: { failed_calls: [{ code: 'confirmation_timed_out' }] },
    });
    expect(table.runs.delete_row).toBe(0);
  });

  it('takes an allowlist, policies, a context and a turn, and refuses confirmation outside the node', async () => {
    const { tools } = rowTools();
    const node = createGatedToolNode({
      tools,
      allowlist: ['read_row', 'delete_row'],
      context: (state) => ({ length: state.messages.length }),
      turn: () => 7,
      storePrefix: 'lg:tools:',
      store: createMemoryStore(),
      policies: [{ name: 'short_chats', check: ({ context }) => (context as { length: number }).length < 5 }],
    });
    const ask = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'c1', name: 'read_row', args: { id: 1 } },
        { name: 'read_row', args: { id: 2 } },
      ],
    });
    const { messages } = await node({ messages: [ask] });
    expect(messages.map((message) => [message.tool_call_id, message.status])).toEqual([
      ['c1', 'success'],
      ['', 'error'],
    ]);
    const outside = await node.gate.process([{ id: 'c9', tool: 'delete_row', args: { id: 1 } }], {
      turn: 7,
      context: { length: 0 },
      sessionKey: 'feishu:g1',
    });
    expect(outside.feedback.failed_calls[0]?.code).toBe('confirmation_declined');
    expect(() => createGatedToolNode({ tools: undefined as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('answers a last message without tool calls with no ToolMessage', async () => {
    const { tools } = agentGraph([]);
    expect(await tools({ messages: [new HumanMessage('hi')] })).toEqual({ messages: [] });
    expect(tools.gate.names).toEqual(['delete_row', 'read_row']);
  });
});
