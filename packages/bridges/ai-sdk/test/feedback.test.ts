import { isParleyError } from '@parley/core';
import { createConflictLoop } from '@parley/conflict';
import { generateText, jsonSchema, type ModelMessage, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkBridge, toConflictGenerate } from '../src/index.js';
import {
  callStep,
  flush,
  scriptedModel,
  sharedWorld,
  shopTools,
  startProcess,
  textStep,
  toolOutputsSeen,
} from './helpers.js';

const ask: ModelMessage[] = [{ role: 'user', content: 'Tidy the shop' }];

describe('refusals the model reads as the tool result', () => {
  it('returns invalid arguments as tool_feedback the model sees, without asking anyone', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: '' }), textStep('Fixed.')]);
    const result = await generateText({
      model,
      tools: host.bridge.tools({ turn: 1, context: { readOnly: false } }),
      messages: ask,
      stopWhen: () => false,
    });
    expect(result.content.some((part) => part.type === 'tool-approval-request')).toBe(false);
    expect(host.channel.outbox()).toEqual([]);
    expect(toolOutputsSeen(model)).toMatchObject([
      {
        type: 'json',
        value: { tool_feedback: { failed_calls: [{ code: 'invalid_args', status: 'rejected' }] } },
      },
    ]);
    expect(world.shop.dropped).toEqual([]);
    await host.bridge.close();
  });

  it('returns a policy refusal with its reason, and the tool does not run', async () => {
    const world = sharedWorld();
    const host = await startProcess(world, { requireApproval: [] });
    const model = scriptedModel([callStep('call_1', 'countRows', { table: 'orders' }), textStep('3 rows.')]);
    const readOnly = host.bridge.tools({ turn: 1, context: { readOnly: true } });
    await generateText({ model, tools: readOnly, messages: ask, stopWhen: () => false });
    expect(toolOutputsSeen(model)).toEqual([{ type: 'json', value: { table: 'orders', rows: 3 } }]);

    const approvedModel = scriptedModel([
      callStep('call_2', 'dropTable', { table: 'orders' }),
      textStep('No.'),
    ]);
    const first = await generateText({ model: approvedModel, tools: readOnly, messages: ask });
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, { sessionKey: 'tg:g1', requester: 'alice' });
    await prompted;
    await host.channel.say('g1', 'alice', 'yes');
    const answer = await answering;
    await generateText({ model: approvedModel, tools: readOnly, messages: [...ask, ...answer.messages] });
    expect(toolOutputsSeen(approvedModel)).toMatchObject([
      {
        type: 'json',
        value: {
          tool_feedback: {
            failed_calls: [{ code: 'not_allowed', reason: expect.stringContaining('read-only') }],
          },
        },
      },
    ]);
    expect(world.shop.dropped).toEqual([]);
    await host.bridge.close();
  });

  it('leaves tools outside the allowlist out of the set', async () => {
    const world = sharedWorld();
    const host = await startProcess(world, { allowlist: ['countRows'] });
    expect(Object.keys(host.bridge.tools({ turn: 1, context: { readOnly: false } }))).toEqual(['countRows']);
    expect(Object.keys(host.bridge.definitions())).toEqual(['countRows']);
    await host.bridge.close();
  });

  it('asks a needsApproval function per call, and validates through an AI SDK jsonSchema validator', async () => {
    const world = sharedWorld();
    const paid: number[] = [];
    const { bus, channel } = await startProcess(world);
    const bridge = createAiSdkBridge({
      tools: {
        pay: tool({
          title: 'Pay',
          inputSchema: jsonSchema<{ amount: number }>(
            { type: 'object', properties: { amount: { type: 'number' } } },
            {
              validate: (value) =>
                typeof (value as { amount?: unknown }).amount === 'number'
                  ? { success: true, value: value as { amount: number } }
                  : { success: false, error: new Error('amount must be a number') },
            },
          ),
          needsApproval: async ({ amount }) => amount > 100,
          execute: async function* ({ amount }) {
            yield 'paying';
            paid.push(amount);
            yield 'paid';
          },
        }),
      },
      confirm: { bus },
      clock: world.clock,
    });
    const tools = bridge.tools({ turn: 1, context: null });
    const small = scriptedModel([callStep('p1', 'pay', { amount: 20 }), textStep('ok')]);
    await generateText({ model: small, tools, messages: ask, stopWhen: () => false });
    expect(toolOutputsSeen(small)).toEqual([{ type: 'text', value: 'paid' }]);
    const large = scriptedModel([callStep('p2', 'pay', { amount: 500 })]);
    const held = await generateText({ model: large, tools, messages: ask });
    expect(held.content.map((part) => part.type)).toContain('tool-approval-request');
    const bad = scriptedModel([callStep('p3', 'pay', { amount: 'lots' }), textStep('ok')]);
    await generateText({ model: bad, tools, messages: ask, stopWhen: () => false });
    expect(toolOutputsSeen(bad)).toMatchObject([
      {
        type: 'json',
        value: {
          tool_feedback: {
            failed_calls: [
              { code: 'invalid_args', reason: expect.stringContaining('amount must be a number') },
            ],
          },
        },
      },
    ]);
    // From the conflict loop, a small payment needs nobody; nothing was sent to the chat.
    const gate = bridge.loopGate(() => ({ turn: 1, context: null }));
    const result = await gate([{ id: 'p4', tool: 'pay', args: { amount: 5 } }], {
      state: null,
      attempt: 1,
      signal: undefined,
    });
    expect(result.executed).toHaveLength(1);
    expect(paid).toEqual([20, 5]);
    expect(channel.outbox()).toEqual([]);
    await bridge.close();
  });

  it('answers an approval request whose arguments fail the schema without asking anyone', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const forged = {
      content: [
        null,
        { type: 'text', text: 'x' },
        {
          type: 'tool-approval-request',
          approvalId: 'a1',
          toolCall: { toolCallId: 'x1', toolName: 'dropTable', input: { table: 7 } },
        },
      ],
      response: { messages: [] },
    };
    const answer = await host.bridge.approve(forged, { sessionKey: 'tg:g1', requester: 'alice' });
    expect(answer).toMatchObject({ approved: false, decisions: [] });
    expect(host.channel.outbox()).toEqual([]);
    await host.bridge.close();
  });
});

describe('options', () => {
  it('words refusals with the host messages, and applies a policy without a tool list to every tool', async () => {
    const world = sharedWorld();
    const host = await startProcess(world, {
      policies: [{ name: 'closed', check: ({ context }) => !context.readOnly }],
      messages: { not_allowed: (info) => `Nope: ${info.tool}` },
    });
    const model = scriptedModel([callStep('c1', 'countRows', { table: 'orders' }), textStep('ok')]);
    await generateText({
      model,
      tools: host.bridge.tools({ turn: 1, context: { readOnly: true } }),
      messages: ask,
      stopWhen: () => false,
    });
    expect(toolOutputsSeen(model)).toMatchObject([
      {
        type: 'json',
        value: { tool_feedback: { failed_calls: [{ code: 'not_allowed', reason: 'Nope: countRows' }] } },
      },
    ]);
    await host.bridge.close();
  });

  it('passes the wait and the signal to the confirm gate; an aborted wait denies with its reason', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' })]);
    const first = await generateText({
      model,
      tools: host.bridge.tools({ turn: 1, context: { readOnly: false } }),
      messages: ask,
    });
    const controller = new AbortController();
    const prompted = host.nextPrompt();
    const answering = host.bridge.approve(first, {
      sessionKey: 'tg:g1',
      requester: 'alice',
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    await prompted;
    controller.abort();
    const answer = await answering;
    expect(answer.approved).toBe(false);
    expect(JSON.stringify(answer.messages.at(-1))).toContain('Not confirmed (aborted: signal)');
    await host.bridge.close();
  });
});

describe('the conflict loop around generateText', () => {
  it('retries with the tool feedback appended, and the loop gate runs the corrected call once', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const model = scriptedModel([
      callStep('c1', 'countRows', { table: 42 }),
      callStep('c2', 'countRows', { table: 'orders' }),
    ]);
    const loop = createConflictLoop({
      gate: host.bridge.loopGate(() => ({ turn: 1, context: { readOnly: false } })),
      clock: world.clock,
    });
    const outcome = await loop.run({
      input: ask,
      readState: () => null,
      generate: toConflictGenerate(({ messages, abortSignal }) =>
        generateText({
          model,
          tools: host.bridge.definitions(),
          messages,
          ...(abortSignal ? { abortSignal } : {}),
        }),
      ),
    });
    expect(outcome).toMatchObject({ ok: true, retries: 1 });
    const retryPrompt = JSON.stringify(model.doGenerateCalls[1]?.prompt);
    expect(retryPrompt).toContain('expected string');
    expect(outcome.ok && outcome.appliedActions).toMatchObject([{ id: 'c2', tool: 'countRows' }]);
    await host.bridge.close();
  });

  it('asks in chat (blocking) for a destructive call proposed in the loop, bound to its arguments', async () => {
    const world = sharedWorld();
    const host = await startProcess(world);
    const controller = new AbortController();
    const gate = host.bridge.loopGate(() => ({
      turn: 2,
      context: { readOnly: false },
      sessionKey: 'tg:g1',
      requester: 'alice',
      signal: controller.signal,
    }));
    const prompted = host.nextPrompt();
    const running = gate([{ id: 'c9', tool: 'dropTable', args: { table: 'users' } }], {
      state: null,
      attempt: 1,
      signal: undefined,
    });
    await prompted;
    await host.channel.say('g1', 'alice', '确认');
    const result = await running;
    expect(result.executed).toMatchObject([{ id: 'c9', result: { dropped: 'users' } }]);
    expect(world.shop.dropped).toEqual(['users']);

    const timed = host.nextPrompt();
    const late = gate([{ id: 'c10', tool: 'dropTable', args: { table: 'orders' } }], {
      state: null,
      attempt: 1,
      signal: undefined,
    });
    await timed;
    world.clock.advance(60_000);
    expect((await late).feedback.failed_calls).toMatchObject([{ code: 'confirmation_timed_out' }]);

    const asked = host.nextPrompt();
    const cancelled = gate([{ id: 'c12', tool: 'dropTable', args: { table: 'orders' } }], {
      state: null,
      attempt: 1,
      signal: undefined,
    });
    await asked;
    await host.channel.say('g1', 'alice', '取消');
    expect((await cancelled).feedback.failed_calls).toMatchObject([{ code: 'confirmation_declined' }]);

    const nobody = host.bridge.loopGate(() => ({ turn: 2, context: { readOnly: false } }));
    const refused = await nobody([{ id: 'c11', tool: 'dropTable', args: { table: 'orders' } }], {
      state: null,
      attempt: 1,
      signal: undefined,
    });
    expect(refused.feedback.failed_calls).toMatchObject([{ code: 'confirmation_declined' }]);
    await flush();
    expect(world.shop.dropped).toEqual(['users']);
    await host.bridge.close();
  });
});

describe('misuse', () => {
  it.each([
    ['no tools', { tools: {} }],
    ['a tool without execute', { tools: { a: tool({ description: 'a', inputSchema: z.object({}) }) } }],
    ['an unknown allowlist name', { allowlist: ['nope'] }],
    ['an unknown requireApproval name', { requireApproval: ['nope'] }],
    ['an allowlist that is not a list', { allowlist: 'countRows' }],
  ])('throws invalid_argument for %s', async (_name, bad) => {
    const world = sharedWorld();
    const { bus } = await startProcess(world);
    expect(() =>
      createAiSdkBridge({ tools: shopTools(world.shop), confirm: { bus }, ...(bad as object) }),
    ).toThrowError(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('throws invalid_result when approve is given something else than a generateText result', async () => {
    const host = await startProcess(sharedWorld());
    const error = await host.bridge
      .approve({} as never, { sessionKey: 's', requester: 'r' })
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'invalid_result')).toBe(true);
    await host.bridge.close();
  });
});
