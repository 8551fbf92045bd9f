// streamText: the same bridge, driven by the AI SDK's streaming path and its mock model's doStream.
import { type ModelMessage, streamText } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { sharedWorld, startProcess } from './helpers.js';

type LanguageModelV3StreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const ask: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table' }];
const where = { sessionKey: 'tg:g1', requester: 'alice' };
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A streamed step proposing one tool call. */
function callChunks(toolCallId: string, toolName: string, input: unknown): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ];
}

/** A streamed step answering in text. */
function textChunks(text: string): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: text },
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
}

/** The AI SDK's mock model whose `doStream` plays the given steps in order. */
function streamingModel(steps: LanguageModelV3StreamPart[][]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: steps.map((chunks) => ({ stream: convertArrayToReadableStream(chunks) })),
  });
}

/** Every part of a stream, by type, with the tool results' outputs. */
async function partsOf(
  stream: AsyncIterable<{ type: string }>,
): Promise<{ type: string; output?: unknown }[]> {
  const parts: { type: string; output?: unknown }[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('streamText through the bridge', () => {
  it('streams the approval request, asks in chat, and streams the tool result once after 确认', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = streamingModel([
      callChunks('call_1', 'dropTable', { table: 'orders' }),
      textChunks('Dropped.'),
    ]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = streamText({ model, tools, messages: ask });
    const seen = (await partsOf(first.fullStream)).map((part) => part.type);
    expect(seen).toContain('tool-approval-request');
    expect(world.shop.dropped).toEqual([]);

    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    expect(host.channel.lastSent('g1')?.text).toContain('dropTable');
    await host.channel.say('g1', 'alice', '确认');
    const answer = await answering;
    expect(answer.approved).toBe(true);

    const second = streamText({ model, tools, messages: [...ask, ...answer.messages] });
    const parts = await partsOf(second.fullStream);
    expect(parts.filter((part) => part.type === 'tool-result').map((part) => part.output)).toEqual([
      { dropped: 'orders' },
    ]);
    expect(await second.text).toBe('Dropped.');
    expect(world.shop.dropped).toEqual(['orders']);
    await host.bridge.close();
  });

  it('streams a refused call back as a tool result the model reads, and the tool does not run', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = streamingModel([callChunks('call_1', 'dropTable', { table: 'orders' }), textChunks('No.')]);
    const readOnly = host.bridge.tools({ turn: 1, context: { readOnly: true } });
    const first = streamText({ model, tools: readOnly, messages: ask });
    await partsOf(first.fullStream);
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    await host.channel.say('g1', 'alice', '确认');
    const answer = await answering;

    const second = streamText({ model, tools: readOnly, messages: [...ask, ...answer.messages] });
    const results = (await partsOf(second.fullStream)).filter((part) => part.type === 'tool-result');
    expect(results.map((part) => part.output)).toMatchObject([
      {
        tool_feedback: {
          failed_calls: [{ code: 'not_allowed', reason: expect.stringContaining('read-only') }],
        },
      },
    ]);
    expect(world.shop.dropped).toEqual([]);
    await host.bridge.close();
  });

  it('streams a declined approval as a denied tool call, and nothing runs', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = streamingModel([
      callChunks('call_1', 'dropTable', { table: 'orders' }),
      textChunks('Not dropped.'),
    ]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = streamText({ model, tools, messages: ask });
    await partsOf(first.fullStream);
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    await host.channel.say('g1', 'alice', '取消');
    const answer = await answering;
    expect(answer.approved).toBe(false);
    const second = streamText({ model, tools, messages: [...ask, ...answer.messages] });
    const types = (await partsOf(second.fullStream)).map((part) => part.type);
    expect(types).toContain('tool-output-denied');
    expect(world.shop.dropped).toEqual([]);
    await host.bridge.close();
  });
});
