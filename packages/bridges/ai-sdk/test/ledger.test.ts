import { createLedger, verifyLedger } from '@parley/ledger';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { callStep, scriptedModel, sharedWorld, startProcess, textStep } from './helpers.js';

const ask: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table' }];

/** One dropTable call answered in chat with `reply`, the conversation carried on; its ledger and world. */
async function answeredRun(reply: string, options: { readonly failNext?: string } = {}) {
  const world = sharedWorld();
  if (options.failNext !== undefined) world.shop.failNext = options.failNext;
  const ledger = createLedger({ store: world.store, clock: world.clock });
  const host = await startProcess(world, { ledger });
  const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep('Done.')]);
  const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
  const first = await generateText({ model, tools, messages: ask });
  const prompted = host.nextPrompt();
  const answering = host.bridge.approve(first, { sessionKey: 'tg:g1', requester: 'alice' });
  await prompted;
  await host.channel.say('g1', 'alice', reply);
  const answer = await answering;
  // a tool that throws fails the call; what the ledger holds is what is asserted
  await generateText({ model, tools, messages: [...ask, ...answer.messages] }).catch(() => undefined);
  await host.bridge.close();
  return { world, ledger };
}

describe('a ledger given to the bridge’s confirm gate', () => {
  it('receives the approval’s request, prompt, answer, decision, authorization and the tool’s effect, and the chain verifies', async () => {
    const { world, ledger } = await answeredRun('确认');
    expect(world.shop.dropped).toEqual(['orders']);
    const kinds = (await ledger.entries('tg:g1')).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision', 'authorization', 'effect']);
    const entries = await ledger.entries('tg:g1');
    const authorization = entries[4]?.body as { confirmationId?: string };
    expect(entries[5]?.body).toMatchObject({
      kind: 'effect',
      confirmationId: authorization.confirmationId,
      outcome: 'succeeded',
    });
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true, entries: 6 });
  });

  it('records the effect as unknown when the tool throws after it was authorized', async () => {
    const { ledger } = await answeredRun('确认', { failNext: 'connection reset' });
    const entries = await ledger.entries('tg:g1');
    expect(entries.at(-1)?.body).toMatchObject({
      kind: 'effect',
      outcome: 'unknown',
      detail: 'connection reset',
    });
    expect(verifyLedger(await ledger.exportLines('tg:g1'))).toMatchObject({ ok: true, entries: 6 });
  });

  it('appends no effect for a call that was never authorized', async () => {
    const { world, ledger } = await answeredRun('取消');
    expect(world.shop.dropped).toEqual([]);
    const kinds = (await ledger.entries('tg:g1')).map((entry) => entry.body.kind);
    expect(kinds).toEqual(['request', 'prompt_delivered', 'answer', 'decision']);
  });
});
