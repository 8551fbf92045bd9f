// Three scripted scenarios of one seed protocol (a destructive action confirmed in chat) on the
// Vercel AI SDK: its real `generateText` loop, its own scripted model (`MockLanguageModelV3`), and
// `@parley/ai-sdk` turning each `tool-approval-request` into a confirmation in a fake chat.
import { type AiSdkBridge, createAiSdkBridge } from '@parley/ai-sdk';
import { createMessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore, createSequentialIds, type ManualClock } from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

type Step = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

/** When the simulated clock starts: 2026-01-01T09:00:00Z. */
export const START_AT = Date.UTC(2026, 0, 1, 9);
/** How long the person has to answer. */
export const TIMEOUT_MS = 60_000;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const call = (id: string, input: unknown): Step => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'dropTable', input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const say = (text: string): Step => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
});

/** What one scenario ended with. */
export interface ScenarioResult {
  readonly name: string;
  /** Tables the tool really dropped (each entry is one run of `execute`). */
  readonly dropped: readonly string[];
  /** The tool results the model was shown in its last call. */
  readonly seen: readonly unknown[];
  readonly pendingTimers: number;
}

interface World {
  readonly clock: ManualClock;
  readonly chat: FakeChannel;
  readonly bridge: AiSdkBridge<Record<string, never>>;
  readonly dropped: string[];
  close(): Promise<void>;
}

async function createWorld(): Promise<World> {
  const clock = createManualClock({ now: START_AT });
  const bus = createMessageBus({ clock });
  const chat = createFakeChannel({ channel: 'tg', clock });
  await bus.attach(chat);
  const dropped: string[] = [];
  const bridge = createAiSdkBridge<Record<string, never>>({
    tools: {
      dropTable: tool({
        description: 'Drops a table',
        inputSchema: z.object({ table: z.string().regex(/^[a-z_]+$/) }),
        needsApproval: true,
        execute: async ({ table }: { table: string }) => {
          dropped.push(table);
          return { dropped: table };
        },
      }),
    },
    confirm: { bus, generateId: createSequentialIds('cfm_'), timeoutMs: TIMEOUT_MS },
    store: createMemoryStore({ clock }),
    clock,
  });
  await bridge.ready;
  return {
    clock,
    chat,
    bridge,
    dropped,
    close: async () => {
      await bridge.close();
      await bus.close();
    },
  };
}

/** The tool results the model was sent in its last call. */
function seenBy(model: MockLanguageModelV3): unknown[] {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
  return prompt.flatMap((m) =>
    m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p.output] : [])) : [],
  );
}

const ASK: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table, it is a leftover.' }];
const WHERE = { sessionKey: 'tg:ops', requester: 'alice' };

/**
 * The person answers 确认 in time (or `late`: after the deadline). Confirmed, the tool runs once,
 * also when the same history is sent again; late, it does not run and the model reads why.
 */
async function confirmInChat(late: boolean, out: (line: string) => void): Promise<ScenarioResult> {
  const world = await createWorld();
  const model = new MockLanguageModelV3({
    doGenerate: [
      call('call_1', { table: 'orders' }),
      say(late ? 'Not dropped: nobody confirmed in time.' : 'Dropped orders.'),
      say('Done.'),
    ],
  });
  const tools = world.bridge.tools({ turn: 1, context: {} });
  out(`alice: ${ASK[0]?.content as string}`);
  const first = await generateText({ model, tools, messages: ASK });
  const request = first.content.find((p) => p.type === 'tool-approval-request');
  out(
    `model → dropTable({"table":"orders"}); the SDK stops with a ${request?.type ?? 'no approval request'}`,
  );
  const prompted = world.chat.waitForSent();
  const answering = world.bridge.approve(first, WHERE);
  out(`bot → tg:ops: ${(await prompted).text ?? ''}`);
  if (late) {
    world.clock.advance(TIMEOUT_MS);
    out(`(${TIMEOUT_MS / 1000} s pass)`);
  }
  await world.chat.say('ops', 'alice', '确认');
  out('alice: 确认');
  const answer = await answering;
  out(`decision: ${answer.decisions.map((d) => d.outcome).join(', ')}; approved: ${answer.approved}`);
  const history = [...ASK, ...answer.messages];
  const second = await generateText({ model, tools, messages: history });
  out(`tool runs: ${world.dropped.length}; model: ${second.text}`);
  if (!late) {
    await generateText({ model, tools, messages: history });
    out(`the same history sent again: tool runs still ${world.dropped.length} (one run per call id)`);
  } else {
    out(`the model was told: ${JSON.stringify(seenBy(model))}`);
  }
  await world.close();
  return {
    name: late ? 'late-answer' : 'confirmed',
    dropped: world.dropped,
    seen: seenBy(model),
    pendingTimers: world.clock.pendingTimers(),
  };
}

/** The model's arguments fail the tool's schema: nobody is asked, the model reads the refusal. */
async function refusedAsFeedback(out: (line: string) => void): Promise<ScenarioResult> {
  const world = await createWorld();
  const model = new MockLanguageModelV3({
    doGenerate: [call('call_1', { table: 'orders; DROP TABLE users' }), say('That table name is not valid.')],
  });
  out(`alice: ${ASK[0]?.content as string}`);
  const result = await generateText({
    model,
    tools: world.bridge.tools({ turn: 1, context: {} }),
    messages: ASK,
    stopWhen: stepCountIs(2),
  });
  out('model → dropTable({"table":"orders; DROP TABLE users"})');
  out(`prompts sent to the chat: ${world.chat.outbox().length}`);
  out(`the model was told: ${JSON.stringify(seenBy(model))}`);
  out(`tool runs: ${world.dropped.length}; model: ${result.text}`);
  await world.close();
  return {
    name: 'refused-as-feedback',
    dropped: world.dropped,
    seen: seenBy(model),
    pendingTimers: world.clock.pendingTimers(),
  };
}

/** Runs the three scenarios in order, printing each through `output`. */
export async function runAiSdkConfirm(
  output: (line: string) => void = () => {},
): Promise<readonly ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const scenarios: [string, () => Promise<ScenarioResult>][] = [
    ['confirmed in chat: the tool runs once', () => confirmInChat(false, output)],
    ['confirmed after the deadline: the tool does not run', () => confirmInChat(true, output)],
    ['invalid arguments: a refusal the model reads, nobody is asked', () => refusedAsFeedback(output)],
  ];
  for (const [title, run] of scenarios) {
    output(`\n── ${title}`);
    results.push(await run());
  }
  return results;
}
