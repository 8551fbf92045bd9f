import { interrupt } from '@langchain/langgraph';
import { type ConfirmAction, type ConfirmOutcome, type DecisionReason, digestAction } from '@parley/confirm';

/**
 * The `kind` of the interrupt values this package raises and answers: `parley.confirm`.
 *
 * @example
 * ```ts
 * import { CONFIRM_INTERRUPT_KIND } from '@parley/langgraph';
 *
 * console.log(CONFIRM_INTERRUPT_KIND); // parley.confirm
 * ```
 */
export const CONFIRM_INTERRUPT_KIND = 'parley.confirm';

/**
 * What a node asks a person to confirm: one action (its name and JSON arguments) and the text the
 * prompt shows, under a key unique in the interrupt.
 *
 * @example
 * ```ts
 * import type { ConfirmInterruptRequest } from '@parley/langgraph';
 *
 * const request: ConfirmInterruptRequest = { key: 'call_1', action: { name: 'drop_table', args: { table: 'orders' } }, summary: 'DROP TABLE orders' };
 * ```
 */
export interface ConfirmInterruptRequest {
  readonly key: string;
  readonly action: ConfirmAction;
  readonly summary: string;
}

/**
 * The value of a confirmation interrupt: what {@link requestConfirmation} and
 * {@link createGatedToolNode} pass to LangGraph's `interrupt()`.
 *
 * @example
 * ```ts
 * import type { ConfirmInterruptValue } from '@parley/langgraph';
 *
 * const value: ConfirmInterruptValue = { kind: 'parley.confirm', requests: [] };
 * ```
 */
export interface ConfirmInterruptValue {
  readonly kind: typeof CONFIRM_INTERRUPT_KIND;
  readonly requests: readonly ConfirmInterruptRequest[];
}

/**
 * A person's answer to one request, as the node is resumed with it: the decision's outcome and
 * id, and the digest of the action decided (the node checks it against its own action).
 *
 * @example
 * ```ts
 * import type { ConfirmAnswer } from '@parley/langgraph';
 *
 * const answer: ConfirmAnswer = { outcome: 'confirmed', decisionId: 'cfm_1', digest: 'ab12…' };
 * ```
 */
export interface ConfirmAnswer {
  readonly outcome: ConfirmOutcome;
  readonly decisionId: string;
  readonly digest: string;
  /** Why the decision came out so (`prompt_failed`: the person was never asked). */
  readonly reason?: DecisionReason | undefined;
}

/**
 * What {@link requestConfirmation} returns once the node is resumed: `confirmed` only when the
 * person confirmed exactly this action (and the confirmation was authorized, once).
 *
 * @example
 * ```ts
 * import type { NodeConfirmation } from '@parley/langgraph';
 *
 * const run = (answer: NodeConfirmation): boolean => answer.confirmed;
 * ```
 */
export interface NodeConfirmation {
  readonly confirmed: boolean;
  /** The decision's outcome; `refused` as well when the answer was for another action. */
  readonly outcome: ConfirmOutcome;
  readonly decisionId: string | undefined;
  /** The decision's reason, when the answer gave one: `prompt_failed` means nobody was asked. */
  readonly reason?: DecisionReason | undefined;
}

/**
 * Pauses the node until a person confirms `action` in chat, through LangGraph's `interrupt()`: the
 * run stops here, {@link runWithConfirmation} (or a restarted process's
 * {@link graphResumeHandlers}) asks the person, and the node runs again from its start with the
 * answer. Call it before the side effect, and keep what comes before it free of side effects (the
 * node runs again on resume).
 *
 * Use it inside a node of a graph compiled with a checkpointer.
 *
 * @example
 * ```ts
 * import { Annotation, MemorySaver, StateGraph } from '@langchain/langgraph';
 * import { requestConfirmation } from '@parley/langgraph';
 *
 * const State = Annotation.Root({ table: Annotation<string>, dropped: Annotation<boolean> });
 * const graph = new StateGraph(State)
 *   .addNode('drop', async (state) => {
 *     const answer = await requestConfirmation({ name: 'drop_table', args: { table: state.table } }, { summary: `DROP TABLE ${state.table}` });
 *     return { dropped: answer.confirmed };
 *   })
 *   .addEdge('__start__', 'drop')
 *   .compile({ checkpointer: new MemorySaver() });
 * const result = await graph.invoke({ table: 'orders' }, { configurable: { thread_id: 't1' } });
 * console.log('__interrupt__' in result); // true
 * ```
 */
export async function requestConfirmation(
  action: ConfirmAction,
  options: { readonly summary?: string; readonly key?: string } = {},
): Promise<NodeConfirmation> {
  const key = options.key ?? 'action';
  const digest = await digestAction(action); // rejects for arguments that are not JSON, before pausing
  const value: ConfirmInterruptValue = {
    kind: CONFIRM_INTERRUPT_KIND,
    requests: [{ key, action, summary: options.summary ?? action.name }],
  };
  const answers = interrupt<ConfirmInterruptValue, unknown>(value);
  return judgeAnswer(readAnswer(answers, key), digest);
}

/** The answer under `key` in a resume value, when it has the right shape. */
export function readAnswer(answers: unknown, key: string): ConfirmAnswer | undefined {
  if (typeof answers !== 'object' || answers === null) return undefined;
  const answer = (answers as Record<string, unknown>)[key];
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { outcome, decisionId, digest, reason } = answer as Record<string, unknown>;
  if (typeof outcome !== 'string' || typeof decisionId !== 'string' || typeof digest !== 'string')
    return undefined;
  // The outcome and reason are compared, never trusted.
  return {
    outcome: outcome as ConfirmOutcome,
    decisionId,
    digest,
    ...(typeof reason === 'string' ? { reason: reason as DecisionReason } : {}),
  };
}

/** Confirmed only for a `confirmed` answer about exactly this action. */
export function judgeAnswer(answer: ConfirmAnswer | undefined, digest: string): NodeConfirmation {
  if (answer === undefined) return { confirmed: false, outcome: 'refused', decisionId: undefined };
  if (answer.digest !== digest)
    return { confirmed: false, outcome: 'refused', decisionId: answer.decisionId };
  return {
    confirmed: answer.outcome === 'confirmed',
    outcome: answer.outcome,
    decisionId: answer.decisionId,
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
  };
}

/** Whether an interrupt value is one of this package's confirmation requests. */
export function isConfirmInterrupt(value: unknown): value is ConfirmInterruptValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === CONFIRM_INTERRUPT_KIND &&
    Array.isArray((value as { requests?: unknown }).requests)
  );
}
