// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/langgraph, compiled and run; each console.log of an example is
// an assertion here.
import { AIMessage } from '@langchain/core/messages';
import { Annotation, MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { isParleyError } from '@parley/core';
import { defineTool } from '@parley/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CONFIRM_INTERRUPT_KIND,
  type ConfirmableGraph,
  type ConfirmAnswer,
  type ConfirmInterruptRequest,
  type ConfirmInterruptValue,
  createGatedToolNode,
  DEFAULT_MAX_CONFIRMATION_ROUNDS,
  type GatedToolNode,
  type GatedToolNodeOptions,
  type GraphResumed,
  type GraphResumeOptions,
  graphResumeHandlers,
  LANGGRAPH_BRIDGE_ERROR_CODES,
  LangGraphBridgeError,
  type LangGraphBridgeErrorCode,
  type NodeConfirmation,
  type RunWithConfirmationOptions,
  requestConfirmation,
  runWithConfirmation,
} from '../src/index.js';

describe('errors.ts examples', () => {
  it('codes, type and class', () => {
    expect(LANGGRAPH_BRIDGE_ERROR_CODES).toEqual([
      'invalid_argument',
      'too_many_rounds',
      'corrupt_record',
      'record_version',
      'store_failed',
    ]);
    const code: LangGraphBridgeErrorCode = 'too_many_rounds';
    const err = new LangGraphBridgeError('invalid_argument', 'a thread_id is required');
    expect(isParleyError(err, 'invalid_argument')).toBe(true);
  });
});

describe('interrupt.ts examples', () => {
  it('constants and types', () => {
    expect(CONFIRM_INTERRUPT_KIND).toBe('parley.confirm');
    const request: ConfirmInterruptRequest = {
      key: 'call_1',
      action: { name: 'drop_table', args: { table: 'orders' } },
      summary: 'DROP TABLE orders',
    };
    const value: ConfirmInterruptValue = { kind: 'parley.confirm', requests: [] };
    const answer: ConfirmAnswer = { outcome: 'confirmed', decisionId: 'cfm_1', digest: 'ab12…' };
    const run = (answer: NodeConfirmation): boolean => answer.confirmed;
    expect(value.requests).toEqual([]);
  });

  it('requestConfirmation', async () => {
    const State = Annotation.Root({ table: Annotation<string>, dropped: Annotation<boolean> });
    const graph = new StateGraph(State)
      .addNode('drop', async (state) => {
        const answer = await requestConfirmation(
          { name: 'drop_table', args: { table: state.table } },
          { summary: `DROP TABLE ${state.table}` },
        );
        return { dropped: answer.confirmed };
      })
      .addEdge('__start__', 'drop')
      .compile({ checkpointer: new MemorySaver() });
    const result = await graph.invoke({ table: 'orders' }, { configurable: { thread_id: 't1' } });
    expect('__interrupt__' in result).toBe(true);
  });
});

describe('drive.ts, runner.ts and resume.ts examples', () => {
  it('constants and types', async () => {
    expect(DEFAULT_MAX_CONFIRMATION_ROUNDS).toBe(16);
    const threadOf = (graph: ConfirmableGraph, id: string) =>
      graph.getState({ configurable: { thread_id: id } });
    const options: RunWithConfirmationOptions = {
      confirm: createConfirmGate({ bus: createMessageBus() }),
      sessionKey: 'feishu:oc_1',
      requester: 'ou_alice',
    };
    await options.confirm.close();
    const log = (event: GraphResumed): string => (event.resumed ? 'resumed' : event.code);
    const resume: GraphResumeOptions = {
      onResumed: (event) => console.log(event.resumed),
      timeoutMs: 120_000,
    };
    expect(resume.timeoutMs).toBe(120_000);
  });

  it('runWithConfirmation', async () => {
    const State = Annotation.Root({ table: Annotation<string>, dropped: Annotation<boolean> });
    const graph = new StateGraph(State)
      .addNode('drop', async (state) => ({
        dropped: (await requestConfirmation({ name: 'drop_table', args: { table: state.table } })).confirmed,
      }))
      .addEdge('__start__', 'drop')
      .compile({ checkpointer: new MemorySaver() });
    const bus = createMessageBus();
    const confirm = createConfirmGate({ bus });
    confirm.on('prompted', () => {
      void bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_alice', text: '确认' });
    });
    const result = await runWithConfirmation(
      graph,
      { table: 'orders' },
      { configurable: { thread_id: 't1' } },
      { confirm, sessionKey: 'feishu:oc_1', requester: 'ou_alice' },
    );
    expect(result).toEqual({ table: 'orders', dropped: true });
    await confirm.close();
  });

  it('graphResumeHandlers', async () => {
    const State = Annotation.Root({ done: Annotation<boolean> });
    const graph = new StateGraph(State)
      .addNode('noop', () => ({ done: true }))
      .addEdge('__start__', 'noop')
      .compile({ checkpointer: new MemorySaver() });
    const resume = graphResumeHandlers(graph, ['drop_table']);
    const confirm = createConfirmGate({ bus: createMessageBus(), resume });
    expect(Object.keys(resume)).toEqual(['drop_table']);
    await confirm.close();
  });
});

describe('tool-node.ts examples', () => {
  it('types', () => {
    const ping = defineTool({
      name: 'ping',
      description: 'Pings',
      args: z.object({}),
      reasons: [],
      execute: () => 'pong',
    });
    const options: GatedToolNodeOptions<readonly [typeof ping]> = { tools: [ping] };
    const names = (node: GatedToolNode): readonly string[] => node.gate.names;
    expect(names(createGatedToolNode(options))).toEqual(['ping']);
  });

  it('createGatedToolNode', async () => {
    const add = defineTool({
      name: 'add',
      description: 'Adds',
      args: z.object({ a: z.number(), b: z.number() }),
      reasons: [],
      execute: ({ a, b }) => a + b,
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('tools', createGatedToolNode({ tools: [add] }))
      .addEdge('__start__', 'tools')
      .compile({ checkpointer: new MemorySaver() });
    const ask = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'c1', name: 'add', args: { a: 1, b: 2 } },
        { id: 'c2', name: 'add', args: { a: 'x' } },
      ],
    });
    const { messages } = await graph.invoke({ messages: [ask] }, { configurable: { thread_id: 't1' } });
    expect(messages.slice(1).map((m) => m.content)).toEqual([
      '3',
      expect.stringMatching(/^The arguments are invalid: /),
    ]);
  });
});
