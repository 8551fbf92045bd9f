import { AIMessageChunk, type ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createMessageBus, type MessageBus } from '@parley/bus';
import { type ConfirmGate, type ConfirmGateOptions, createConfirmGate } from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { defineTool } from '@parley/tools';
import { z } from 'zod';
import { createGatedToolNode, type GraphResumed } from '../src/index.js';

export interface Chat {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly confirm: ConfirmGate;
  /** Resolves once the next prompt was delivered. */
  nextPrompt(): Promise<unknown>;
  /** Answers every prompt with `text` as alice in g1, from now on. */
  answerWith(text: string): void;
  /** A new confirm gate over the same store and clock, on a new bus and chat: a restart. */
  restart(options?: Partial<ConfirmGateOptions>): Promise<Chat>;
}

export const SESSION = { sessionKey: 'feishu:g1', requester: 'alice' } as const;

export async function chat(
  options: Partial<ConfirmGateOptions> = {},
  shared?: { clock: ManualClock; store: Store },
): Promise<Chat> {
  const clock = shared?.clock ?? createManualClock({ now: 1_000_000 });
  const store = shared?.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock });
  await bus.attach(channel);
  const confirm = createConfirmGate({
    bus,
    clock,
    store,
    generateId: createSequentialIds(shared === undefined ? 'cfm_' : 'cfm_r'),
    ...options,
  });
  await confirm.ready;
  return {
    clock,
    store,
    bus,
    channel,
    confirm,
    nextPrompt: () =>
      new Promise((resolve) => {
        const off = confirm.on('prompted', (event) => {
          off();
          resolve(event);
        });
      }),
    answerWith(text) {
      confirm.on('prompted', () => {
        void channel.say('g1', 'alice', text);
      });
    },
    restart: (more = {}) => chat(more, { clock, store }),
  };
}

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
