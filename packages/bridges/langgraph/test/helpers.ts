import { AIMessageChunk, type ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { ManualClock, Store } from '@parley/core';
import { defineTool } from '@parley/tools';
import { z } from 'zod';
import { createGatedToolNode, type GraphResumed, type NodeConfirmation } from '../src/index.js';

// The confirm gate on a fake chat, shared with the other bridges' tests.
export { type Chat, chat, closedAfterEach, SESSION } from '../../../../tests/support/confirm-chat.js';

/** A graph's state: the table its node works on, and the confirmations the node was answered. */
export const State = Annotation.Root({
  table: Annotation<string>,
  answers: Annotation<NodeConfirmation[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

/** The rows of a table a model may read and delete; counts every run of each tool. */
export function rowTools() {
  const rows = new Map([
    [1, 'alpha'],
    [2, 'beta'],
  ]);
  const runs = { delete_row: 0, read_row: 0 };
  const deleteRow = defineTool({
    name: 'delete_row',
    description: 'Deletes a row',
    args: z.object({ id: z.number().int() }),
    reasons: ['no_such_row'],
    confirm: true,
    summarize: ({ id }) => `DELETE row ${id}`,
    execute: ({ id }, { reject }) => {
      runs.delete_row += 1;
      return rows.delete(id) ? { deleted: id } : reject('no_such_row');
    },
  });
  const readRow = defineTool({
    name: 'read_row',
    description: 'Reads a row',
    args: z.object({ id: z.number().int() }),
    reasons: [],
    execute: ({ id }) => {
      runs.read_row += 1;
      return rows.get(id) ?? 'none';
    },
  });
  return { rows, runs, tools: [deleteRow, readRow] as const };
}

/**
 * A ReAct-shaped graph: a fake chat model proposes `calls`, the gated tools node runs them, then
 * the run ends. The model is LangChain's own FakeStreamingChatModel.
 */
export function agentGraph(
  calls: { id: string; name: string; args: Record<string, unknown> }[],
  options: {
    checkpointer?: MemorySaver;
    store?: Store;
    clock?: ManualClock;
    tools?: ReturnType<typeof rowTools>;
  } = {},
) {
  const table = options.tools ?? rowTools();
  const model = new FakeStreamingChatModel({
    sleep: 0,
    chunks: [
      new AIMessageChunk({
        content: '',
        tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' as const })),
      }),
    ],
  });
  const tools = createGatedToolNode({
    tools: table.tools,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', tools)
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer: options.checkpointer ?? new MemorySaver() });
  return { graph, table, tools };
}

/** Collects what `onResumed` hears; `handled` resolves at the first event. */
export function resumeCollector(): {
  readonly resumed: GraphResumed[];
  readonly handled: Promise<void>;
  onResumed(event: GraphResumed): void;
} {
  const resumed: GraphResumed[] = [];
  let done: () => void = () => {};
  const handled = new Promise<void>((resolve) => {
    done = resolve;
  });
  return {
    resumed,
    handled,
    onResumed(event) {
      resumed.push(event);
      done();
    },
  };
}

/** The ToolMessages of a run's result. */
export const toolMessages = (result: unknown): ToolMessage[] =>
  (result as { messages: ToolMessage[] }).messages.filter((message) => message.getType() === 'tool');
