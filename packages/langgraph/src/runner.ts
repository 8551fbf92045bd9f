import { Command } from '@langchain/langgraph';
import {
  type ConfirmAction,
  type ConfirmDecision,
  type ConfirmGate,
  digestAction,
  type ResumeHandler,
} from '@parley/confirm';
import type { JsonValue } from '@parley/core';
import { LangGraphBridgeError } from './errors.js';
import { type ConfirmAnswer, type ConfirmInterruptRequest, isConfirmInterrupt } from './interrupt.js';

/**
 * How many confirmation rounds (resumes) one run drives before giving up, unless told otherwise: 16.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ROUNDS } from '@parley/langgraph';
 *
 * console.log(DEFAULT_MAX_ROUNDS); // 16
 * ```
 */
export const DEFAULT_MAX_ROUNDS = 16;

/**
 * What the bridge needs of a compiled graph: `invoke` (with a `Command` to resume) and `getState`.
 *
 * @example
 * ```ts
 * import type { ConfirmableGraph } from '@parley/langgraph';
 *
 * const threadOf = (graph: ConfirmableGraph, id: string) => graph.getState({ configurable: { thread_id: id } });
 * ```
 */
export interface ConfirmableGraph {
  /** Runs the graph from `input`, or resumes it with a `Command`, on the thread of `config`. */
  invoke(input: unknown, config: { readonly configurable: Record<string, unknown> }): Promise<unknown>;
  /** The thread's state, with the interrupts pending on its tasks. */
  getState(config: { readonly configurable: Record<string, unknown> }): Promise<{
    readonly tasks: readonly {
      readonly interrupts: readonly { readonly id?: string; readonly value?: unknown }[];
    }[];
  }>;
}

/**
 * Where and how a run's confirmations are asked.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import type { RunWithConfirmationOptions } from '@parley/langgraph';
 *
 * const options: RunWithConfirmationOptions = {
 *   confirm: createConfirmGate({ bus: createMessageBus() }), sessionKey: 'feishu:oc_1', requester: 'ou_alice',
 * };
 * await options.confirm.close();
 * ```
 */
export interface RunWithConfirmationOptions {
  readonly confirm: ConfirmGate;
  /** The chat the person is asked in. */
  readonly sessionKey: string;
  /** The person whose message started the run; by default only they may answer. */
  readonly requester: string;
  /** How long the person has to answer each confirmation; the gate's default otherwise. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** The most confirmation rounds (resumes) in one run; {@link DEFAULT_MAX_ROUNDS} by default. */
  readonly maxRounds?: number;
}

/**
 * Runs a graph and answers its confirmation interrupts through a person in chat: each request is
 * asked through the confirm gate (bound to the exact action, with its deadline), authorized once,
 * and the thread is resumed with `new Command({ resume: { [interruptId]: answers } })`, until the
 * run ends or stops on an interrupt that is not this package's. Returns what the last `invoke`
 * returned.
 *
 * Use it where you would call `graph.invoke(input, config)` for a turn of a chat. The thread must
 * have a `thread_id` and the graph a checkpointer. An answer after the deadline counts as
 * `timed_out`, so the node does not run the action.
 *
 * @throws LangGraphBridgeError `invalid_argument` for a missing graph, gate, session or thread id;
 * `too_many_rounds` past `maxRounds`.
 * @example
 * ```ts
 * import { Annotation, MemorySaver, StateGraph } from '@langchain/langgraph';
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import { requestConfirmation, runWithConfirmation } from '@parley/langgraph';
 *
 * const State = Annotation.Root({ table: Annotation<string>, dropped: Annotation<boolean> });
 * const graph = new StateGraph(State)
 *   .addNode('drop', async (state) => ({
 *     dropped: (await requestConfirmation({ name: 'drop_table', args: { table: state.table } })).confirmed,
 *   }))
 *   .addEdge('__start__', 'drop')
 *   .compile({ checkpointer: new MemorySaver() });
 * const bus = createMessageBus();
 * const confirm = createConfirmGate({ bus });
 * confirm.on('prompted', () => {
 *   void bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_alice', text: '确认' });
 * });
 * const result = await runWithConfirmation(graph, { table: 'orders' }, { configurable: { thread_id: 't1' } }, {
 *   confirm, sessionKey: 'feishu:oc_1', requester: 'ou_alice',
 * });
 * console.log(result); // { table: 'orders', dropped: true }
 * await confirm.close();
 * ```
 */
export async function runWithConfirmation<TOutput = unknown>(
  graph: ConfirmableGraph,
  input: unknown,
  config: { readonly configurable: Record<string, unknown> },
  options: RunWithConfirmationOptions,
): Promise<TOutput> {
  checkRun(graph, config, options);
  const first = await graph.invoke(input, config);
  return drive(graph, config, options, first, new Map()) as Promise<TOutput>;
}

/**
 * What became of a run resumed after a restart: it was resumed (`result` is what the graph
 * returned), or not, because the interrupt was no longer pending (resumed already) or the
 * decision was not recorded here.
 *
 * @example
 * ```ts
 * import type { GraphResumed } from '@parley/langgraph';
 *
 * const log = (event: GraphResumed): string => (event.resumed ? 'resumed' : event.code);
 * ```
 */
export type GraphResumed =
  | {
      readonly resumed: true;
      readonly decision: ConfirmDecision;
      readonly threadId: string;
      readonly result: unknown;
    }
  | {
      readonly resumed: false;
      readonly decision: ConfirmDecision;
      readonly code: 'not_pending' | 'unknown_decision';
    };

/**
 * Options for {@link graphResumeHandlers}.
 *
 * @example
 * ```ts
 * import type { GraphResumeOptions } from '@parley/langgraph';
 *
 * const options: GraphResumeOptions = { onResumed: (event) => console.log(event.resumed), timeoutMs: 120_000 };
 * ```
 */
export interface GraphResumeOptions {
  /** Told what became of each resumed run (e.g. to post the result in the chat). */
  readonly onResumed?: (event: GraphResumed) => void | Promise<void>;
  /** For the confirmations the resumed run still needs. */
  readonly timeoutMs?: number;
  readonly maxRounds?: number;
}

/**
 * Makes the `resume` handlers of a `@parley/confirm` gate for the actions a graph confirms, so a
 * run whose confirmation was pending when the process stopped resumes when the person answers
 * after the restart: exactly once (only while the interrupt is still pending on the thread), from
 * the graph's checkpointer, asking any further confirmation in the same chat.
 *
 * Use it when creating the confirm gate of a restarted process, with the same store, and the graph
 * compiled with the same checkpointer. Answers given before the restart to other requests of the
 * same interrupt are asked again (nothing ran for them).
 *
 * @throws LangGraphBridgeError `invalid_argument` without a graph.
 * @example
 * ```ts
 * import { MemorySaver, StateGraph, Annotation } from '@langchain/langgraph';
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import { graphResumeHandlers } from '@parley/langgraph';
 *
 * const State = Annotation.Root({ done: Annotation<boolean> });
 * const graph = new StateGraph(State).addNode('noop', () => ({ done: true })).addEdge('__start__', 'noop')
 *   .compile({ checkpointer: new MemorySaver() });
 * const confirm = createConfirmGate({ bus: createMessageBus(), resume: graphResumeHandlers(graph, ['drop_table']) });
 * await confirm.close();
 * ```
 */
export function graphResumeHandlers(
  graph: ConfirmableGraph,
  actions: readonly string[],
  options: GraphResumeOptions = {},
): Readonly<Record<string, ResumeHandler>> {
  if (typeof graph?.invoke !== 'function' || typeof graph.getState !== 'function') {
    throw new LangGraphBridgeError('invalid_argument', 'graphResumeHandlers needs a compiled graph');
  }
  const handler: ResumeHandler = async (decision, gate) => {
    const report = async (event: GraphResumed): Promise<void> => {
      await options.onResumed?.(event);
    };
    const route = readRoute(decision.action.args);
    if (route === undefined) return report({ resumed: false, decision, code: 'unknown_decision' });
    const config = { configurable: { thread_id: route.threadId } };
    const value = await pendingInterrupt(graph, config, route.interruptId);
    if (value === undefined) return report({ resumed: false, decision, code: 'not_pending' });
    const run: RunWithConfirmationOptions = {
      confirm: gate,
      sessionKey: decision.sessionKey,
      requester: decision.requester,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
    };
    const known = new Map([
      [`${route.interruptId}\u0000${route.key}`, await answerOf(gate, decision, route.args)],
    ]);
    const result = await drive(graph, config, run, undefined, known);
    return report({ resumed: true, decision, threadId: route.threadId, result });
  };
  return Object.fromEntries(actions.map((name) => [name, handler]));
}

/** Asks and resumes until the thread has no confirmation interrupt pending. */
async function drive(
  graph: ConfirmableGraph,
  config: { readonly configurable: Record<string, unknown> },
  options: RunWithConfirmationOptions,
  last: unknown,
  known: Map<string, ConfirmAnswer>,
): Promise<unknown> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  const threadId = String(config.configurable['thread_id']);
  let result = last;
  for (let round = 0; ; round++) {
    const state = await graph.getState(config);
    const pending = state.tasks
      .flatMap((task) => task.interrupts)
      .filter((item) => isConfirmInterrupt(item.value));
    if (pending.length === 0) return result;
    if (round >= maxRounds) {
      throw new LangGraphBridgeError(
        'too_many_rounds',
        `The run asked for confirmation more than ${maxRounds} times`,
        {
          details: { threadId, maxRounds },
        },
      );
    }
    const resume: Record<string, Record<string, ConfirmAnswer>> = {};
    for (const item of pending) {
      const id = String(item.id);
      const answers: Record<string, ConfirmAnswer> = {};
      // isConfirmInterrupt checked the value's shape above.
      for (const request of (item.value as { requests: readonly ConfirmInterruptRequest[] }).requests) {
        answers[request.key] =
          known.get(`${id}\u0000${request.key}`) ?? (await ask(options, threadId, id, request));
      }
      resume[id] = answers;
    }
    known.clear();
    result = await graph.invoke(new Command({ resume }), config);
  }
}

/** Asks the person about one request; the action is bound to the thread and interrupt too. */
async function ask(
  options: RunWithConfirmationOptions,
  threadId: string,
  interruptId: string,
  request: ConfirmInterruptRequest,
): Promise<ConfirmAnswer> {
  const args = request.action.args ?? {};
  const action: ConfirmAction = {
    name: request.action.name,
    args: { args, thread: threadId, interrupt: interruptId, key: request.key },
  };
  const decision = await options.confirm.request({
    sessionKey: options.sessionKey,
    requester: options.requester,
    action,
    summary: request.summary,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return answerOf(options.confirm, decision, args);
}

/** The answer a node gets: `confirmed` only once `authorize` agreed, with the inner action's digest. */
async function answerOf(
  gate: ConfirmGate,
  decision: ConfirmDecision,
  args: JsonValue,
): Promise<ConfirmAnswer> {
  const digest = await digestAction({ name: decision.action.name, args });
  if (decision.outcome !== 'confirmed') return { outcome: decision.outcome, decisionId: decision.id, digest };
  const auth = await gate.authorize(decision, decision.action);
  return { outcome: auth.ok ? 'confirmed' : 'refused', decisionId: decision.id, digest };
}

/** The interrupt's value when it is still pending on the thread. */
async function pendingInterrupt(
  graph: ConfirmableGraph,
  config: { readonly configurable: Record<string, unknown> },
  interruptId: string,
): Promise<unknown> {
  const state = await graph.getState(config);
  const found = state.tasks.flatMap((task) => task.interrupts).find((item) => item.id === interruptId);
  return found === undefined || !isConfirmInterrupt(found.value) ? undefined : found.value;
}

interface Route {
  readonly args: JsonValue;
  readonly threadId: string;
  readonly interruptId: string;
  readonly key: string;
}

/** The thread, interrupt and request a recorded confirmation was asked for. */
function readRoute(args: JsonValue): Route | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const { args: inner, thread, interrupt, key } = args as { readonly [key: string]: JsonValue };
  if (
    typeof thread !== 'string' ||
    typeof interrupt !== 'string' ||
    typeof key !== 'string' ||
    inner === undefined
  ) {
    return undefined;
  }
  return { args: inner, threadId: thread, interruptId: interrupt, key };
}

function checkRun(
  graph: ConfirmableGraph,
  config: { readonly configurable: Record<string, unknown> },
  options: RunWithConfirmationOptions,
): void {
  if (typeof graph?.invoke !== 'function' || typeof graph.getState !== 'function') {
    throw new LangGraphBridgeError('invalid_argument', 'runWithConfirmation needs a compiled graph');
  }
  if (
    typeof config?.configurable?.['thread_id'] !== 'string' &&
    typeof config?.configurable?.['thread_id'] !== 'number'
  ) {
    throw new LangGraphBridgeError('invalid_argument', 'runWithConfirmation needs configurable.thread_id');
  }
  if (
    typeof options?.confirm?.request !== 'function' ||
    typeof options.sessionKey !== 'string' ||
    typeof options.requester !== 'string'
  ) {
    throw new LangGraphBridgeError(
      'invalid_argument',
      'runWithConfirmation needs a confirm gate, sessionKey and requester',
    );
  }
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 1) {
    throw new LangGraphBridgeError('invalid_argument', 'maxRounds must be an integer ≥ 1');
  }
}
