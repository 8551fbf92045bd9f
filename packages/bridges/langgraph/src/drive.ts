import { Command } from '@langchain/langgraph';
import { type ConfirmAction, type ConfirmDecision, type ConfirmGate, digestAction } from '@parley/confirm';
import type { Clock, JsonValue, Lease, Store } from '@parley/core';
import { LangGraphBridgeError } from './errors.js';
import { type ConfirmAnswer, type ConfirmInterruptRequest, isConfirmInterrupt } from './interrupt.js';
import { type AnswerLedger, createAnswerLedger } from './ledger.js';

/**
 * How many confirmation rounds (resumes) one run drives before giving up, unless told otherwise: 16.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CONFIRMATION_ROUNDS } from '@parley/langgraph';
 *
 * console.log(DEFAULT_MAX_CONFIRMATION_ROUNDS); // 16
 * ```
 */
export const DEFAULT_MAX_CONFIRMATION_ROUNDS = 16;

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
  /** The most confirmation rounds (resumes) in one run; {@link DEFAULT_MAX_CONFIRMATION_ROUNDS} by default. */
  readonly maxRounds?: number;
  /**
   * Where the answers of each interrupt are kept (by thread, interrupt id and request), and who
   * resumed it: give the confirm gate's store so a restarted process neither asks again what was
   * answered before the restart nor resumes an interrupt twice. This run's memory by default.
   */
  readonly store?: Store;
  /** Prefix of those keys; `langgraph:` by default. */
  readonly storePrefix?: string;
  /** The clock of the resume claims' leases and the answers' lifetimes; the system clock by default. */
  readonly clock?: Clock;
}

/**
 * What driving a thread came to: the last result; or nothing, because another resumer took it, or
 * because the gate closed (`closed`) before the person answered.
 */
export type Driven =
  | { readonly claimed: true; readonly result: unknown }
  | { readonly claimed: false; readonly closed: boolean };

/**
 * Asks and resumes until the thread has no confirmation interrupt pending. Each request is
 * answered from the ledger when it was answered before (also before a restart), otherwise asked;
 * each interrupt is resumed only by whoever claims it first.
 */
export async function drive(
  graph: ConfirmableGraph,
  config: { readonly configurable: Record<string, unknown> },
  options: RunWithConfirmationOptions,
  last: unknown,
  ledger: AnswerLedger = ledgerOf(options),
): Promise<Driven> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_CONFIRMATION_ROUNDS;
  const threadId = String(config.configurable['thread_id']);
  let result = last;
  for (let round = 0; ; round++) {
    const state = await graph.getState(config);
    const pending = state.tasks
      .flatMap((task) => task.interrupts)
      .filter((item) => isConfirmInterrupt(item.value));
    if (pending.length === 0) return { claimed: true, result };
    if (round >= maxRounds) {
      throw new LangGraphBridgeError(
        'too_many_rounds',
        `The run asked for confirmation more than ${maxRounds} times`,
        { details: { threadId, maxRounds } },
      );
    }
    const resume: Record<string, Record<string, ConfirmAnswer>> = {};
    for (const item of pending) {
      const id = String(item.id);
      const answers: Record<string, ConfirmAnswer> = {};
      // isConfirmInterrupt checked the value's shape above.
      for (const request of (item.value as { requests: readonly ConfirmInterruptRequest[] }).requests) {
        const args = request.action.args ?? {};
        const digest = await digestAction({ name: request.action.name, args });
        const answer =
          (await ledger.answered(threadId, id, request.key, digest)) ??
          (await askAndRecord(options, ledger, threadId, id, request));
        // A closed gate's answer is not the person's: never resume with it. The thread keeps its
        // interrupt, and the restarted process asks again (or takes the answer given meanwhile).
        if (answer === undefined) return { claimed: false, closed: true };
        answers[request.key] = answer;
      }
      resume[id] = answers;
    }
    const ids = Object.keys(resume);
    const claimed: Lease[] = [];
    for (const id of ids) {
      const lease = await ledger.claim(threadId, id);
      if (lease === undefined) break;
      claimed.push(lease);
    }
    try {
      if (claimed.length < ids.length) return { claimed: false, closed: false };
      result = await graph.invoke(new Command({ resume }), config);
    } catch (error) {
      for (const lease of claimed) await ledger.release(lease);
      throw error;
    }
  }
}

/** The ledger of a run's options. */
export function ledgerOf(options: RunWithConfirmationOptions): AnswerLedger {
  return createAnswerLedger(options.store, options.storePrefix ?? 'langgraph:', options.clock);
}

/**
 * Asks and records the person's answer; the answer of a gate that closed (its process stopping) is
 * not theirs: it is neither recorded nor returned, so the restarted process takes the answer they
 * give later.
 */
async function askAndRecord(
  options: RunWithConfirmationOptions,
  ledger: AnswerLedger,
  threadId: string,
  interruptId: string,
  request: ConfirmInterruptRequest,
): Promise<ConfirmAnswer | undefined> {
  const { answer, closed } = await ask(options, threadId, interruptId, request);
  return closed ? undefined : ledger.record(threadId, interruptId, request.key, answer);
}

/** Asks the person about one request; the action is bound to the thread and interrupt too. */
async function ask(
  options: RunWithConfirmationOptions,
  threadId: string,
  interruptId: string,
  request: ConfirmInterruptRequest,
): Promise<{ readonly answer: ConfirmAnswer; readonly closed: boolean }> {
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
  return { answer: await answerOf(options.confirm, decision, args), closed: decision.reason === 'closed' };
}

/** The answer a node gets: `confirmed` only once `authorize` agreed, with the inner action's digest. */
export async function answerOf(
  gate: ConfirmGate,
  decision: ConfirmDecision,
  args: JsonValue,
): Promise<ConfirmAnswer> {
  const digest = await digestAction({ name: decision.action.name, args });
  const { reason } = decision;
  if (decision.outcome !== 'confirmed')
    return { outcome: decision.outcome, decisionId: decision.id, digest, reason };
  const auth = await gate.authorize(decision, decision.action);
  return { outcome: auth.ok ? 'confirmed' : 'refused', decisionId: decision.id, digest, reason };
}
