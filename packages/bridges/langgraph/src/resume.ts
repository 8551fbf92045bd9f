import type { ConfirmDecision, ResumeHandler } from '@parley/confirm';
import type { Clock, JsonValue, Store } from '@parley/core';
import {
  answerOf,
  type ConfirmableGraph,
  drive,
  ledgerOf,
  type RunWithConfirmationOptions,
} from './drive.js';
import { LangGraphBridgeError } from './errors.js';
import { isConfirmInterrupt } from './interrupt.js';

/**
 * What became of a run resumed after a restart: it was resumed (`result` is what the graph
 * returned), or not, because the interrupt was no longer pending (resumed already), the
 * decision was not recorded here, or this gate closed (`closed`) while the resumed run waited on
 * a further confirmation (the next process asks it again).
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
      readonly code: 'not_pending' | 'unknown_decision' | 'closed';
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
  /**
   * The store the first process kept the interrupts' answers in (its confirm gate's store): the
   * requests of the same interrupt answered before the restart are not asked again.
   */
  readonly store?: Store;
  readonly storePrefix?: string;
  /** The clock of the resume claims' leases (the store's clock); the system clock by default. */
  readonly clock?: Clock;
}

/**
 * Makes the `resume` handlers of a `@parley/confirm` gate for the actions a graph confirms, so a
 * run whose confirmation was pending when the process stopped resumes when the person answers
 * after the restart: exactly once (only while the interrupt is still pending on the thread), from
 * the graph's checkpointer, asking any further confirmation in the same chat.
 *
 * Use it when creating the confirm gate of a restarted process, with the same store, and the graph
 * compiled with the same checkpointer, and the same `store` the run was given: answers given
 * before the restart to other requests of the same interrupt are taken from it, not asked again,
 * and the interrupt is resumed with `Command({ resume })` once, by whoever claims it first.
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
      ...(options.store === undefined ? {} : { store: options.store }),
      ...(options.storePrefix === undefined ? {} : { storePrefix: options.storePrefix }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    };
    const ledger = ledgerOf(run);
    await ledger.record(
      route.threadId,
      route.interruptId,
      route.key,
      await answerOf(gate, decision, route.args),
    );
    const driven = await drive(graph, config, run, undefined, ledger);
    if (!driven.claimed)
      return report({ resumed: false, decision, code: driven.closed ? 'closed' : 'not_pending' });
    return report({ resumed: true, decision, threadId: route.threadId, result: driven.result });
  };
  return Object.fromEntries(actions.map((name) => [name, handler]));
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
