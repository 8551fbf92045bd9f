// The example of README.md, checked and run by test/readme.test.ts: everything from the first
// import down is the README's code block, character for character.
import { createAiSdkBridge } from '@parley/ai-sdk';
import { createMessageBus } from '@parley/bus';
import { createFakeChannel } from '@parley/testing';
import { generateText, type LanguageModel, type ModelMessage, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const chat = createFakeChannel({ channel: 'tg' }); // stands in for your Telegram, Slack, Feishu… adapter
const bus = createMessageBus();
await bus.attach(chat);
const dropped: string[] = [];
const bridge = createAiSdkBridge<{ readOnly: boolean }>({
  tools: {
    dropTable: tool({
      description: 'Drops a table',
      inputSchema: z.object({ table: z.string().min(1) }),
      needsApproval: true, // the SDK's own flag: a person decides, in chat
      execute: async ({ table }) => {
        dropped.push(table); // your destructive work
        return { dropped: table };
      },
    }),
  },
  policies: [
    {
      name: 'read_only',
      check: ({ context }) => (context.readOnly ? { message: 'The shop is read-only' } : undefined),
    },
  ],
  confirm: { bus, timeoutMs: 5 * 60_000 },
  // store: a @parley/redis or @parley/postgres Store, so approvals survive restarts and replicas
});

async function handle(
  model: LanguageModel,
  history: ModelMessage[],
  from: { sessionKey: string; user: string },
) {
  const tools = bridge.tools({ turn: 1, context: { readOnly: false } });
  let result = await generateText({ model, tools, messages: history });
  while (result.content.some((part) => part.type === 'tool-approval-request')) {
    const answer = await bridge.approve(result, { sessionKey: from.sessionKey, requester: from.user });
    history = [...history, ...answer.messages];
    result = await generateText({ model, tools, messages: history }); // runs the approved call (once)
  }
  return result.text;
}

// The AI SDK's mock model proposes the call, then answers; use your provider's model instead.
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const model = new MockLanguageModelV3({
  doGenerate: [
    {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'dropTable', input: '{"table":"orders"}' }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    },
    {
      content: [{ type: 'text', text: 'Dropped orders.' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    },
  ],
});
const reply = handle(model, [{ role: 'user', content: 'drop orders' }], {
  sessionKey: 'tg:ops',
  user: 'alice',
});
await chat.waitForSent('orders'); // the prompt in alice's chat: 确认 / yes runs it, 取消 / no cancels
await chat.say('ops', 'alice', 'yes');
console.log(await reply, dropped); // Dropped orders. [ 'orders' ]
await bridge.close();
