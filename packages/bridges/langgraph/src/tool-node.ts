import { type BaseMessage, isAIMessage, ToolMessage } from '@langchain/core/messages';
import { interrupt } from '@langchain/langgraph';
import { digestAction } from '@parley/confirm';
import { type Clock, generateId, type JsonValue, type Store } from '@parley/core';
import {
  type AnyToolDefinition,
  createToolGate,
  type ToolConfirmAnswer,
  type ToolConfirmRequest,
  type ToolGate,
  type ToolNameOf,
  type ToolPolicy,
} from '@parley/tools';
import { LangGraphBridgeError } from './errors.js';
import {
  CONFIRM_INTERRUPT_KIND,
  type ConfirmInterruptRequest,
  type ConfirmInterruptValue,
  judgeAnswer,
  type NodeConfirmation,
  readAnswer,
} from './interrupt.js';

/**
 * Options for {@link createGatedToolNode}.
 *
 * @example
 * ```ts
 * import type { GatedToolNodeOptions } from '@parley/langgraph';
 * import { defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' });
 * const options: GatedToolNodeOptions<readonly [typeof ping]> = { tools: [ping] };
 * ```
 */
export interface GatedToolNodeOptions<TTools extends readonly AnyToolDefinition[], TContext = undefined> {
  /** The tools (made with `defineTool`); those with `confirm` wait for a person. */
  readonly tools: TTools;
  /** The tools the model may call now; every tool by default. */
  readonly allowlist?: readonly ToolNameOf<TTools>[];
  readonly policies?: readonly ToolPolicy<TContext, ToolNameOf<TTools>>[];
  /** The host's context for policies and executors, read from the graph state. */
  readonly context?: (state: { readonly messages: readonly BaseMessage[] }) => TContext;
  /**
   * The turn the calls belong to, read from the state; the number of AI messages by default. It
   * must not change while the node is interrupted and resumed (call ids run once per turn).
   */
  readonly turn?: (state: { readonly messages: readonly BaseMessage[] }) => number;
  /** Remembers what ran per call id, so a node resumed after a restart does not run it again. */
  readonly store?: Store;
  readonly storePrefix?: string;
  readonly clock?: Clock;
}

/**
 * A graph node that runs the last AI message's tool calls through a Parley tool gate; also holds
 * the gate (`node.gate`) for events, snapshots and disabling tools.
 *
 * @example
 * ```ts
 * import type { GatedToolNode } from '@parley/langgraph';
 *
 * const names = (node: GatedToolNode): readonly string[] => node.gate.names;
 * ```
 */
export interface GatedToolNode<TName extends string = string, TContext = undefined> {
  (state: { readonly messages: readonly BaseMessage[] }): Promise<{ messages: ToolMessage[] }>;
  readonly gate: ToolGate<TName, TContext>;
}

/**
 * Makes the tools node of a graph with a Parley tool gate in front: the last AI message's tool
 * calls pass the allowlist, the args schemas and the policies; those that need a person pause the
 * graph with one confirmation interrupt (answered by {@link runWithConfirmation}); each call comes
 * back as a `ToolMessage`, a refusal with `status: 'error'`, the reason as content and the
 * `tool_feedback` as artifact, so the model reads why and can retry.
 *
 * Use it in place of a `ToolNode`, in a graph compiled with a checkpointer. Calls that ran before
 * the interrupt are not run again when the node resumes (the gate remembers their ids; give it a
 * `store` to remember across restarts).
 *
 * @throws ToolsError for a bad registry, allowlist or policy (see `createToolGate`).
 * @example
 * ```ts
 * import { AIMessage } from '@langchain/core/messages';
 * import { MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
 * import { createGatedToolNode } from '@parley/langgraph';
 * import { defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const add = defineTool({
 *   name: 'add', description: 'Adds', args: z.object({ a: z.number(), b: z.number() }), reasons: [],
 *   execute: ({ a, b }) => a + b,
 * });
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode('tools', createGatedToolNode({ tools: [add] }))
 *   .addEdge('__start__', 'tools')
 *   .compile({ checkpointer: new MemorySaver() });
 * const ask = new AIMessage({ content: '', tool_calls: [
 *   { id: 'c1', name: 'add', args: { a: 1, b: 2 } }, { id: 'c2', name: 'add', args: { a: 'x' } },
 * ] });
 * const { messages } = await graph.invoke({ messages: [ask] }, { configurable: { thread_id: 't1' } });
 * console.log(messages.slice(1).map((m) => m.content)); // [ '3', 'The arguments are invalid: …' ]
 * ```
 */
export function createGatedToolNode<const TTools extends readonly AnyToolDefinition[], TContext = undefined>(
  options: GatedToolNodeOptions<TTools, TContext>,
): GatedToolNode<ToolNameOf<TTools>, TContext> {
  if (!Array.isArray(options?.tools)) {
    throw new LangGraphBridgeError('invalid_argument', 'createGatedToolNode needs the tools');
  }
  /** Per node run (keyed by a token passed as the session key): the answers, and what was asked. */
  const runs = new Map<string, { answers: unknown; asked: ConfirmInterruptRequest[] }>();
  const confirm = async (request: ToolConfirmRequest<TContext>): Promise<ToolConfirmAnswer> => {
    const run = runs.get(String(request.sessionKey));
    if (run === undefined) return 'declined';
    // The gate's confirmation copy of the arguments is parsed from canonical JSON, so it is JSON.
    const action = { name: request.call.tool, args: request.args as JsonValue };
    const answer = readAnswer(run.answers, request.call.id);
    if (answer === undefined) {
      run.asked.push({ key: request.call.id, action, summary: request.summary });
      return 'declined';
    }
    const judged = judgeAnswer(answer, await digestAction(action));
    return judged.confirmed ? 'confirmed' : toToolAnswer(judged);
  };
  const gate = createToolGate<TTools, TContext>({
    tools: options.tools,
    allowlist: options.allowlist ?? (options.tools.map((tool) => tool.name) as ToolNameOf<TTools>[]),
    confirm,
    ...(options.policies === undefined ? {} : { policies: options.policies }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.storePrefix === undefined ? {} : { storePrefix: options.storePrefix }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const turnOf = options.turn ?? ((state) => state.messages.filter((message) => isAIMessage(message)).length);

  const node = async (state: {
    readonly messages: readonly BaseMessage[];
  }): Promise<{ messages: ToolMessage[] }> => {
    const last = state.messages.at(-1);
    const calls =
      last !== undefined && isAIMessage(last)
        ? (last.tool_calls ?? []).map((call) => ({ id: call.id ?? '', tool: call.name, args: call.args }))
        : [];
    const token = generateId('lg_');
    const run = { answers: undefined as unknown, asked: [] as ConfirmInterruptRequest[] };
    runs.set(token, run);
    try {
      const process = () =>
        gate.process(calls, {
          turn: turnOf(state),
          context: options.context?.(state) as TContext, // undefined when the host has no context
          sessionKey: token,
        });
      let result = await process();
      if (run.asked.length > 0) {
        const value: ConfirmInterruptValue = { kind: CONFIRM_INTERRUPT_KIND, requests: run.asked };
        run.answers = interrupt<ConfirmInterruptValue, unknown>(value); // pauses here until answered
        run.asked = [];
        result = await process();
      }
      const executed = new Map(result.executed.map((call) => [call.id, call]));
      const failed = new Map(result.feedback.failed_calls.map((call) => [call.id, call]));
      return {
        messages: calls.map((call) => {
          const done = executed.get(call.id);
          if (done !== undefined) {
            return new ToolMessage({
              tool_call_id: call.id,
              name: call.tool,
              status: 'success',
              content: textOf(done.result),
            });
          }
          const refused = failed.get(call.id);
          return new ToolMessage({
            tool_call_id: call.id,
            name: call.tool,
            status: 'error',
            content: refused?.reason ?? 'The call was not run',
            artifact: { tool_feedback: { failed_calls: refused === undefined ? [] : [refused] } },
          });
        }),
      };
    } finally {
      runs.delete(token);
    }
  };
  return Object.assign(node, { gate });
}

/** A prompt that could not be sent is `failed` (nobody was asked), never a decline. */
function toToolAnswer(judged: NodeConfirmation): ToolConfirmAnswer {
  if (judged.outcome === 'aborted' && judged.reason === 'prompt_failed') return 'failed';
  return judged.outcome === 'timed_out' ? 'timed_out' : 'declined';
}

function textOf(result: unknown): string {
  return typeof result === 'string' ? result : JSON.stringify(result ?? null);
}
