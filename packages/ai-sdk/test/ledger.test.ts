import { createLedger, verifyLedger } from '@parley/ledger';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { callStep, scriptedModel, sharedWorld, startProcess, textStep } from './helpers.js';

const ask: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table' }];

describe('a ledger given to the bridge’s confirm gate', () => {
  it('receives the approval’s request, prompt, answer, decision and authorization, and the chain verifies', async () => {
    const world = sharedWorld();
    const ledger = createLedger({ store: world.store, clock: world.clock });
    const host = await startProcess(world, { ledger });
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep('Dropped.')]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = await generateText({ model, tools, messages: ask });
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, { sessionKey: 'tg:g1', requester: 'alice' });
    await prompted;
    await host.channel.say('g1', 'alice', '确认');
    const answer = await answering;
    await generateText({ model, tools, messages: [...ask, ...answer.messages] });
    expect(world.shop.dropped).toEqual(['orders']);
    const kinds = (await ledger.entries('tg:g1')).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization']);
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true, entries: 5 });
    await host.bridge.close();
  });
});
