import {
  type ConfirmableGraph,
  DEFAULT_MAX_CONFIRMATION_ROUNDS,
  drive,
  type RunWithConfirmationOptions,
} from './drive.js';
import { LangGraphBridgeError } from './errors.js';

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
  const driven = await drive(graph, config, options, first);
  // Another resumer (a restarted process's handler) took the thread: its result is theirs.
  return (driven.claimed ? driven.result : first) as TOutput;
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
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_CONFIRMATION_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 1) {
    throw new LangGraphBridgeError('invalid_argument', 'maxRounds must be an integer ≥ 1');
  }
}
