// The README's first snippet: the code between the #region markers below is the README's code
// block without its imports, and it runs here against the real LangGraph and a fake chat.
import { AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createFakeChannel } from '@parley/testing';
import { defineTool } from '@parley/tools';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createGatedToolNode, runWithConfirmation } from '../src/index.js';
import { captureLogs, readmeFirstBlock, regionOf } from '../../../../tests/support/readme-block.js';

const logged = captureLogs();

it('shows the code that runs here', () => {
  expect(readmeFirstBlock(new URL('../README.md', import.meta.url))).toBe(
    regionOf(new URL(import.meta.url), 'graph'),
  );
});

it('runs the snippet: the model proposes, the person confirms, the tool runs once', async () => {
  // #region graph
  const orders = new Map([[7, 'open']]);
  const cancelOrder = defineTool({
    name: 'cancel_order',
    description: 'Cancels an order',
    args: z.object({ order: z.number().int() }),
    reasons: ['not_open'],
    confirm: true, // a person confirms every call, bound to its exact arguments
    summarize: ({ order }) => `Cancel order #${order}`,
    execute: ({ order }, { reject }) => {
      if (orders.get(order) !== 'open') return reject('not_open');
      orders.set(order, 'cancelled');
      return { order, status: 'cancelled' };
    },
  });

  // A model that proposes one call (LangChain's fake; your ChatOpenAI / ChatAnthropic in production).
  const model = new FakeStreamingChatModel({
    sleep: 0,
    chunks: [
      new AIMessageChunk({
        content: '',
        tool_calls: [{ id: 'call_1', name: 'cancel_order', args: { order: 7 } }],
      }),
    ],
  });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', createGatedToolNode({ tools: [cancelOrder] }))
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer: new MemorySaver() });

  // The chat the person answers in (a fake one here; a grammY / Slack / Feishu adapter in production).
  const bus = createMessageBus();
  const chat = createFakeChannel({ channel: 'feishu' });
  await bus.attach(chat);
  const confirm = createConfirmGate({ bus });
  confirm.on('prompted', () => void chat.say('g1', 'alice', '确认')); // the person answers

  const result = await runWithConfirmation<typeof MessagesAnnotation.State>(
    graph,
    { messages: [new HumanMessage('cancel order 7')] },
    { configurable: { thread_id: 'feishu:g1' } },
    { confirm, sessionKey: 'feishu:g1', requester: 'alice' },
  );
  console.log(result.messages.at(-1)?.content); // {"order":7,"status":"cancelled"}
  console.log(orders.get(7)); // cancelled
  await confirm.close();
  // #endregion
  expect(logged).toEqual([['{"order":7,"status":"cancelled"}'], ['cancelled']]);
});
