// The README's example flow, run with the SDK's MockLanguageModelV3 and a fake chat.
import { generateText, type LanguageModel, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { callStep, scriptedModel, sharedWorld, startProcess, textStep } from './helpers.js';

describe('README', () => {
  it('asks in chat until every approval is answered, then runs the approved call once', async () => {
    const world = sharedWorld();
    const { bridge, channel, nextPrompt } = await startProcess(world);
    async function handle(
      model: LanguageModel,
      history: ModelMessage[],
      chat: { sessionKey: string; user: string },
      turn: number,
    ) {
      const tools = bridge.tools({ turn, context: { readOnly: false } });
      let result = await generateText({ model, tools, messages: history });
      while (result.content.some((part) => part.type === 'tool-approval-request')) {
        const answer = await bridge.approve(result, { sessionKey: chat.sessionKey, requester: chat.user });
        history = [...history, ...answer.messages];
        result = await generateText({ model, tools, messages: history });
      }
      return result.text;
    }
    const model = scriptedModel([
      callStep('c1', 'dropTable', { table: 'orders' }),
      textStep('Dropped orders.'),
    ]);
    const prompted = nextPrompt();
    const text = handle(
      model,
      [{ role: 'user', content: 'drop orders' }],
      { sessionKey: 'tg:g1', user: 'alice' },
      1,
    );
    await prompted;
    await channel.say('g1', 'alice', 'yes');
    expect(await text).toBe('Dropped orders.');
    expect(world.shop.dropped).toEqual(['orders']);
    await bridge.close();
  });
});
