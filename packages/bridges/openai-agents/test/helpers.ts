import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  tool,
  Usage,
} from '@openai/agents';
import { createMessageBus, type MessageBus } from '@parley/bus';
import { type ConfirmEvents, type ConfirmGate, createConfirmGate } from '@parley/confirm';
import {
  type ConsentLedger,
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type JsonValue,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { z } from 'zod';
import {
  type AgentsBridge,
  type AgentsBridgeOptions,
  type AgentsRunOutcome,
  createAgentsBridge,
  toInputGuardrail,
} from '../src/index.js';
import { nextPrompt } from '../../../../tests/support/confirm-chat.js';

type OutputItem = ModelResponse['output'][number];

/** A model implementing the SDK's `Model` interface with scripted outputs, recording every request. */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: OutputItem[][]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.steps.shift();
    if (output === undefined) throw new Error('ScriptedModel: no output scripted for this call');
    return { usage: new Usage(), output };
  }
  // biome-ignore lint/correctness/useYield: streaming is not scripted
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ScriptedModel: streaming is not scripted');
  }
}

/** A model whose first call never answers: the process running it "dies" there. Resolves `reached` when called. */
export function hangingModel(): { readonly model: Model; readonly reached: Promise<void> } {
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const model: Model = {
    getResponse: () => {
      reach();
      return new Promise<never>(() => {}); // never answers
    },
    // biome-ignore lint/correctness/useYield: streaming is not scripted
    async *getStreamedResponse(): AsyncIterable<never> {
      throw new Error('hangingModel: streaming is not scripted');
    },
  };
  return { model, reached };
}

export function call(callId: string, name: string, args: unknown): OutputItem {
  return { type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' };
}

export function say(text: string): OutputItem {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

/** The outputs of tool calls the model was sent in its last request. */
export function toolOutputsSeen(model: ScriptedModel): unknown[] {
  const input = model.requests.at(-1)?.input;
  if (!Array.isArray(input)) return [];
  return input.flatMap((item) => (item.type === 'function_call_result' ? [item.output] : []));
}

export interface World {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly dropped: string[];
  /** Authoritative state outside the run context (which a resumed run reads from its stored copy). */
  frozen: boolean;
}

export function sharedWorld(): World {
  const clock = createManualClock({ now: 1_700_000_000_000 });
  return { clock, store: createMemoryStore({ clock }), dropped: [], frozen: false };
}

export function opsAgent(world: World, model: Model): Agent<{ readOnly: boolean }> {
  const guardrail = toInputGuardrail<{ readOnly: boolean }>({
    policies: [
      { name: 'frozen', check: () => (world.frozen ? { reason: 'The shop is frozen' } : undefined) },
      {
        name: 'read_only',
        check: ({ context }) =>
          context.readOnly ? { reason: 'The shop is in read-only mode', toolReason: 'read_only' } : undefined,
      },
    ],
    args: z.object({ table: z.string().min(1) }),
    clock: world.clock,
  });
  return new Agent<{ readOnly: boolean }>({
    name: 'ops',
    instructions: 'You run the shop database.',
    model,
    tools: [
      tool({
        name: 'drop_table',
        description: 'Drops a table',
        parameters: z.object({ table: z.string() }),
        needsApproval: true,
        inputGuardrails: [guardrail],
        execute: async ({ table }) => {
          world.dropped.push(table);
          return `dropped ${table}`;
        },
      }),
    ],
  });
}

export interface Process {
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly bridge: AgentsBridge<{ readOnly: boolean }>;
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
}

export async function startProcess(
  world: World,
  model: Model,
  more: Partial<AgentsBridgeOptions<{ readOnly: boolean }>> & { readonly ledger?: ConsentLedger } = {},
  ids = 'cfm_',
): Promise<Process> {
  const bus = createMessageBus({ clock: world.clock });
  const channel = createFakeChannel({ channel: 'tg', clock: world.clock });
  await bus.attach(channel);
  const bridge = createAgentsBridge<{ readOnly: boolean }>({
    agent: opsAgent(world, model),
    runner: new Runner({ tracingDisabled: true, toolExecution: { preApprovalInputGuardrails: true } }),
    confirm: {
      bus,
      generateId: createSequentialIds(ids),
      timeoutMs: 60_000,
      ...(more.ledger === undefined ? {} : { ledger: more.ledger }),
    },
    store: world.store,
    clock: world.clock,
    ...more,
  });
  await bridge.ready;
  return { bus, channel, bridge, nextPrompt: () => nextPrompt(bridge.confirmGate) };
}

export async function flush(times = 20): Promise<void> {
  for (let i = 0; i < times; i += 1) await Promise.resolve();
}

/** What another replica writes over a stored record (`undefined`: none yet). */
export type ReplicaWrite = (stored: JsonValue | undefined) => JsonValue;

/**
 * A store standing for one shared by replicas: `raceNext(prefix, write, skip)` makes another replica
 * write a key of that prefix (`write` of what is stored) right before one of our next
 * compare-and-sets on it, so that ours loses and is decided again on what the other wrote.
 */
export function racingStore(
  inner: Store,
): Store & { raceNext(prefix: string, write: ReplicaWrite, skip?: number): void } {
  let race: { prefix: string; write: ReplicaWrite; skip: number } | undefined;
  return {
    get: (key) => inner.get(key),
    getEntry: (key) => inner.getEntry(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (prefix) => inner.list(prefix),
    close: () => inner.close(),
    ...(inner.watch === undefined ? {} : { watch: inner.watch.bind(inner) }),
    async compareAndSet(key, version, value, options) {
      if (race !== undefined && key.startsWith(race.prefix)) {
        if (race.skip === 0) {
          const { write } = race;
          race = undefined;
          await inner.set(key, write(await inner.get(key)));
        } else race.skip -= 1;
      }
      return inner.compareAndSet(key, version, value, options);
    },
    raceNext(prefix, write, skip = 0) {
      race = { prefix, write, skip };
    },
  };
}

/** A replica's change of the data of a stored record (kept in the kernel's envelope). */
export function changeData(change: (data: Record<string, JsonValue>) => JsonValue): ReplicaWrite {
  return (stored) => {
    const record = stored as { data: Record<string, JsonValue> }; // a record this bridge wrote
    return { ...record, data: change(record.data) };
  };
}

export const WHERE = { sessionKey: 'tg:g1', requester: 'alice' } as const;

/**
 * A process on `world` running r1 ("Drop orders", not read-only) with `model`; resolves once the
 * approval prompt is out, with the run still waiting.
 */
export async function promptedRun(
  world: World,
  model: Model,
  more: Partial<AgentsBridgeOptions<{ readOnly: boolean }>> & { readonly ledger?: ConsentLedger } = {},
  ids = 'cfm_',
): Promise<{ host: Process; running: Promise<AgentsRunOutcome<{ readOnly: boolean }>> }> {
  const host = await startProcess(world, model, more, ids);
  const prompted = host.nextPrompt();
  const running = host.bridge.run({
    runId: 'r1',
    input: 'Drop orders',
    context: { readOnly: false },
    ...WHERE,
  });
  await prompted;
  return { host, running };
}

/** A first process that proposed dropping orders in r1, then died before the person answered. */
export async function diedAfterProposal(world: World): Promise<void> {
  const { host } = await promptedRun(
    world,
    new ScriptedModel([[call('c1', 'drop_table', { table: 'orders' })]]),
    {},
    'cfm_a',
  );
  await host.bridge.close();
}

/**
 * r1 proposed a drop in a process that died. A restarted chat listener (a confirm gate on the same
 * store whose resume handler only records) hears 确认 when `answered`; nobody has resumed r1 yet.
 */
export async function storedRun(world: World, answered: boolean): Promise<ConfirmGate> {
  await diedAfterProposal(world);
  const bus = createMessageBus({ clock: world.clock });
  const channel = createFakeChannel({ channel: 'tg', clock: world.clock });
  await bus.attach(channel);
  let decided: () => void = () => {};
  const recorded = new Promise<void>((resolve) => {
    decided = resolve;
  });
  const listener = createConfirmGate({
    bus,
    store: world.store,
    clock: world.clock,
    resume: { drop_table: () => decided() },
  });
  await listener.ready;
  if (answered) {
    await channel.say('g1', 'alice', '确认');
    await recorded;
  }
  return listener;
}
