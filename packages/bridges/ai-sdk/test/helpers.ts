type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
import { createMessageBus, type MessageBus } from '@parley/bus';
import type { ConfirmEvents } from '@parley/confirm';
import {
  type ConsentLedger,
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { generateText, type ModelMessage, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { type AiSdkBridge, type AiSdkBridgeOptions, createAiSdkBridge } from '../src/index.js';
import { nextPrompt } from '../../../../tests/support/confirm-chat.js';

export interface Shop {
  readonly tables: Set<string>;
  readonly dropped: string[];
  /** When set, the next dropTable throws this message (the database dropped the connection). */
  failNext?: string;
}

/** The host's tools: one destructive (needs approval), one read-only. */
export function shopTools(shop: Shop) {
  return {
    dropTable: tool({
      description: 'Drops a table',
      inputSchema: z.object({ table: z.string().min(1) }),
      needsApproval: true,
      execute: async ({ table }: { table: string }) => {
        const failure = shop.failNext;
        shop.failNext = undefined;
        if (failure !== undefined) throw new Error(failure);
        shop.dropped.push(table);
        shop.tables.delete(table);
        return { dropped: table };
      },
    }),
    countRows: tool({
      description: 'Counts the rows of a table',
      inputSchema: z.object({ table: z.string() }),
      execute: async ({ table }: { table: string }) => ({ table, rows: shop.tables.has(table) ? 3 : 0 }),
    }),
  };
}

export interface Process {
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly bridge: AiSdkBridge<{ readOnly: boolean }>;
  /** Resolves with the next prompt the confirm gate sends. */
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
}

/** One process of the host: a bus with a fake chat, and a bridge on the shared store and clock. */
export async function startProcess(
  shared: { clock: ManualClock; store: Store; shop: Shop },
  more: Partial<AiSdkBridgeOptions<{ readOnly: boolean }>> & { readonly ledger?: ConsentLedger } = {},
  ids = 'cfm_',
): Promise<Process> {
  const bus = createMessageBus({ clock: shared.clock });
  const channel = createFakeChannel({ channel: 'tg', clock: shared.clock });
  await bus.attach(channel);
  const bridge = createAiSdkBridge<{ readOnly: boolean }>({
    tools: shopTools(shared.shop),
    confirm: {
      bus,
      generateId: createSequentialIds(ids),
      timeoutMs: 60_000,
      ...(more.ledger === undefined ? {} : { ledger: more.ledger }),
    },
    store: shared.store,
    clock: shared.clock,
    policies: [
      {
        name: 'read_only',
        tools: ['dropTable'],
        check: ({ context }) => (context.readOnly ? { reason: 'The shop is in read-only mode' } : undefined),
      },
    ],
    ...more,
  });
  await bridge.ready;
  return { bus, channel, bridge, nextPrompt: () => nextPrompt(bridge.confirmGate) };
}

/** `store`, whose compare-and-set rejects ("store down") for the keys `fails` picks, when it picks them. */
export function failingCompareAndSet(store: Store, fails: (key: string) => boolean): Store {
  return {
    ...store,
    get: (key) => store.get(key),
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    list: (prefix) => store.list(prefix),
    close: () => store.close(),
    getEntry: (key) => store.getEntry(key),
    compareAndSet: (key, version, value, options) =>
      fails(key)
        ? Promise.reject(new Error('store down'))
        : store.compareAndSet(key, version, value, options),
  };
}

export function sharedWorld(): { clock: ManualClock; store: Store; shop: Shop } {
  const clock = createManualClock({ now: 1_700_000_000_000 });
  return {
    clock,
    store: createMemoryStore({ clock }),
    shop: { tables: new Set(['orders', 'users']), dropped: [] },
  };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model step that proposes one tool call. */
export function callStep(
  toolCallId: string,
  toolName: string,
  input: unknown,
): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** A model step that answers in text. */
export function textStep(text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

/** The AI SDK's own mock model, answering with the given steps in order. */
export function scriptedModel(steps: LanguageModelV3GenerateResult[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({ doGenerate: steps });
}

/** The text of every tool-result output the model was sent in its last call. */
export function toolOutputsSeen(model: MockLanguageModelV3): unknown[] {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.output] : []))
      : [],
  );
}

/** Lets pending promise callbacks run (no timers involved). */
export async function flush(times = 20): Promise<void> {
  for (let i = 0; i < times; i += 1) await Promise.resolve();
}

/** What the user asks in the approval tests. */
export const DROP_ASK: ModelMessage[] = [{ role: 'user', content: 'Drop the orders table' }];

/**
 * The model proposes dropping `orders`: the first `generateText` stops at the approval request,
 * and the model's next step says `then`.
 */
export async function proposeDrop(host: Process, then: string) {
  const model = scriptedModel([callStep('call_1', 'dropTable', { table: 'orders' }), textStep(then)]);
  const tools = host.bridge.tools({ turn: 1, context: { readOnly: false } });
  const first = await generateText({ model, tools, messages: DROP_ASK });
  return { model, tools, first };
}
