import { isParleyError, type JsonValue } from '@parley/core';
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { AiSdkBridgeError } from '../src/index.js';
import {
  callStep,
  failingCompareAndSet,
  scriptedModel,
  sharedWorld,
  startProcess,
  textStep,
  toolOutputsSeen,
} from './helpers.js';

const ask: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table' }];
const where = { sessionKey: 'tg:g1', requester: 'alice' };
const KEY = 'parley:ai-sdk:approval:call_1';

/** `approve` of a drop proposal whose approval key already holds `stored`: rejected with, or asked. */
async function approveOver(stored: JsonValue): Promise<unknown> {
  const world = sharedWorld();
  const host = await startProcess(world);
  const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep('Dropped.')]);
  const first = await generateText({
    model,
    tools: host.bridge.tools({ turn: 1, context: { readOnly: false } }),
    messages: ask,
  });
  await world.store.set(KEY, stored);
  const prompted = host.nextPrompt().then(() => 'asked' as const);
  const answering = host.bridge.approve(first, where).then(
    () => 'answered' as const,
    (error: unknown) => error,
  );
  const outcome = await Promise.race([answering, prompted]); // whichever comes first: asked, or refused
  await host.bridge.close();
  expect(await world.store.get(KEY)).toEqual(stored); // never overwritten
  expect(world.shop.dropped).toEqual([]);
  return outcome;
}

function expectRefused(error: unknown, code: 'corrupt_record' | 'record_version'): void {
  expect(error).toBeInstanceOf(AiSdkBridgeError);
  expect(isParleyError(error, code)).toBe(true);
}

describe('stored approval records are checked before they are used', () => {
  it('refuses a stored approval that is not one with corrupt_record, asking nobody', async () => {
    expectRefused(
      await approveOver({ approvalId: 'a1', toolCallId: 'call_1', decisionId: 42 }),
      'corrupt_record',
    );
  });

  it('refuses a stored approval of another format version with record_version, never overwriting it', async () => {
    const data = { approvalId: 'a1', toolCallId: 'call_1', tool: 'dropTable', args: { table: 'orders' } };
    const stored = {
      kind: 'parley.ai-sdk.approval',
      version: 2,
      data,
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    expectRefused(await approveOver(stored), 'record_version');
  });
});

describe('records met on the way', () => {
  it('refuses the call (confirmation_failed), running nothing, when the record of an answered call is corrupt', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([
      callStep('call_1', 'dropTable', { table: 'orders' }),
      textStep('Not dropped.'),
    ]);
    const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
    const first = await generateText({ model, tools, messages: ask });
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, where);
    await prompted;
    await host.channel.say('g1', 'alice', '确认');
    const answer = await answering;
    await world.store.set(KEY, { decisionId: 'cfm_1' }); // the answered record, corrupted
    await generateText({ model, tools, messages: [...ask, ...answer.messages] });
    expect(world.shop.dropped).toEqual([]);
    const refused = { id: 'call_1', tool: 'dropTable', status: 'error', code: 'confirmation_failed' };
    expect(toolOutputsSeen(model)).toEqual([
      { type: 'json', value: { tool_feedback: { failed_calls: [expect.objectContaining(refused)] } } },
    ]);
    await host.bridge.close();
  });
});

describe('a failing store', () => {
  it('rejects approve with store_failed when the approval cannot be stored, asking nobody', async () => {
    const world = sharedWorld();
    const store = failingCompareAndSet(world.store, (key) => key.startsWith('parley:ai-sdk:approval:'));
    const host = await startProcess({ ...world, store });
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' })]);
    const first = await generateText({
      model,
      tools: host.bridge.tools({ turn: 1, context: { readOnly: false } }),
      messages: ask,
    });
    const error = await host.bridge.approve(first, where).catch((caught: unknown) => caught);
    expect(isParleyError(error, 'store_failed')).toBe(true);
    expect(host.channel.sent).toEqual([]);
    await host.bridge.close();
  });
});

describe('records of other calls', () => {
  it('resumes a restored approval though other stored approvals are corrupt or of another format', async () => {
    const world = sharedWorld();
    const before = await startProcess(world, {}, 'cfm_a');
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' })]);
    const tools = before.bridge.tools({ turn: 1, context: { readOnly: false } });
    const prompted = before.nextPrompt();
    void before.bridge.approve(await generateText({ model, tools, messages: ask }), where);
    await prompted;
    await before.bridge.close(); // the process dies before the answer
    const data = {
      ...((await world.store.get(KEY)) as { data: Record<string, JsonValue> }).data,
      toolCallId: 'call_0',
    };
    const envelope = { lease: null, fence: 0, deadlineAt: null };
    await world.store.set('parley:ai-sdk:approval:call_0', {
      kind: 'parley.ai-sdk.approval',
      version: 2,
      data,
      ...envelope,
    });
    await world.store.set('parley:ai-sdk:approval:call_9', {
      kind: 'parley.ai-sdk.approval',
      version: 1,
      data: 7,
      ...envelope,
    });
    let resume: (outcome: string) => void = () => {};
    const resumed = new Promise<string>((resolve) => {
      resume = resolve;
    });
    const after = await startProcess(
      world,
      { onResume: ({ decision }) => resume(decision.outcome) },
      'cfm_b',
    );
    await after.channel.say('g1', 'alice', '确认');
    expect(await resumed).toBe('confirmed'); // the restored approval was resumed
    await after.bridge.close();
  });
});
