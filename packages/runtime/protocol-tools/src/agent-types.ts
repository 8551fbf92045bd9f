import type { Clock, Unsubscribe } from '@parley/core';
import type { Correlator } from '@parley/correlate';
import type { ToolBatchResult, ToolCallProposal, ToolGateFeedback, ToolGate } from '@parley/tools';
import type { ProtocolToolContext, ProtocolTools } from './define.js';
import type { ProtocolNotice } from './notice.js';

/**
 * What the agent's model is asked: a notice of the protocols, or a prompt of the host's own
 * (`TPrompt`, such as "start your task"); after a turn with refused calls, the same prompt again
 * with the gate's `tool_feedback`.
 *
 * @example
 * ```ts
 * import type { ProtocolAgentPrompt } from '@parley/protocol-tools';
 *
 * const start: ProtocolAgentPrompt<{ type: 'start'; task: string }> = { type: 'start', task: 'refactor auth' };
 * ```
 */
export type ProtocolAgentPrompt<TPrompt extends object = never> = (TPrompt | ProtocolNotice) & {
  readonly tool_feedback?: ToolGateFeedback;
};

/**
 * What the model answers: the tool calls it makes (none to stay silent).
 *
 * @example
 * ```ts
 * import type { ProtocolAgentTurn } from '@parley/protocol-tools';
 *
 * const silent: ProtocolAgentTurn = { tool_calls: [] };
 * ```
 */
export interface ProtocolAgentTurn {
  readonly tool_calls: readonly ToolCallProposal[];
}

/**
 * The model behind the agent: any client that answers a prompt with tool calls (a real model
 * client, or `createScriptedModel` from `@parley/testing`). The signal aborts when the agent closes.
 *
 * @example
 * ```ts
 * import type { ProtocolAgentModel } from '@parley/protocol-tools';
 *
 * const silent: ProtocolAgentModel = async () => ({ tool_calls: [] });
 * ```
 */
export type ProtocolAgentModel<TPrompt extends object = never> = (
  prompt: ProtocolAgentPrompt<TPrompt>,
  context: { readonly signal: AbortSignal },
) => Promise<ProtocolAgentTurn>;

/**
 * Options of {@link createProtocolAgent}.
 *
 * @example
 * ```ts
 * import { createCorrelator, shutdownProtocol } from '@parley/correlate';
 * import { defineProtocolTools, type ProtocolAgentOptions } from '@parley/protocol-tools';
 * import { createToolGate } from '@parley/tools';
 *
 * const shutdown = defineProtocolTools(shutdownProtocol);
 * const correlator = createCorrelator({ self: 'alice', protocols: [shutdownProtocol], send: () => {} });
 * const gate = createToolGate({ tools: [shutdown.respond], allowlist: ['shutdown_response'] });
 * const options: ProtocolAgentOptions = { correlator, gate, tools: [shutdown], model: async () => ({ tool_calls: [] }) };
 * correlator.close();
 * ```
 */
export interface ProtocolAgentOptions<TPrompt extends object = never> {
  /** The agent's own correlator. */
  readonly correlator: Correlator;
  /** The agent's tool gate, holding its side of each handshake (and any other tools). */
  readonly gate: Pick<ToolGate<string, ProtocolToolContext>, 'names' | 'process'>;
  /**
   * The protocols it takes part in. The model hears of a request waiting for its answer when the
   * gate has the protocol's respond tool, and of the outcome of its own request when it has the
   * request tool.
   */
  readonly tools: readonly Pick<
    ProtocolTools<string, string>,
    'protocol' | 'request' | 'respond' | 'notice'
  >[];
  readonly model: ProtocolAgentModel<TPrompt>;
  /**
   * Who the model may send requests to (the request tools' `context.peers`); any but itself when
   * omitted. A function is read at each model turn: a lead that spawns teammates passes the ones
   * on the team now, so a request to one not spawned yet (or gone) is refused `unknown_peer`.
   */
  readonly peers?: readonly string[] | (() => readonly string[]);
  readonly clock?: Clock;
  /** How long after a notice or a prompt the model is asked, on the clock; 0 (a timer of 0 ms) by default. */
  readonly delayMs?: number;
  /** How many times a turn with refused calls is asked again with `tool_feedback`; 1 by default, at most 5. */
  readonly maxRetries?: number;
}

/**
 * Events of a protocol agent; each carries plain data.
 *
 * @example
 * ```ts
 * import type { ProtocolAgentEvents } from '@parley/protocol-tools';
 *
 * const onTurn = (e: ProtocolAgentEvents['turn']): void => console.log(e.result.executed.length);
 * ```
 */
export interface ProtocolAgentEvents<TPrompt extends object = never> {
  /** The gate processed the calls of one model turn (none when the model stayed silent). */
  turn: {
    readonly prompt: ProtocolAgentPrompt<TPrompt>;
    readonly calls: readonly ToolCallProposal[];
    readonly result: ToolBatchResult;
  };
  /** The model call failed (not when the agent was closed while it was thinking). */
  error: { readonly prompt: ProtocolAgentPrompt<TPrompt>; readonly error: unknown };
}

/**
 * A party of the protocols driven by a model: see {@link createProtocolAgent}.
 *
 * @example
 * ```ts
 * import type { ProtocolAgent } from '@parley/protocol-tools';
 *
 * async function settle(agent: ProtocolAgent): Promise<number> {
 *   await agent.idle();
 *   return agent.turns;
 * }
 * ```
 */
export interface ProtocolAgent<TPrompt extends object = never> {
  /** Model turns the gate processed so far (the gate's turn numbers). */
  readonly turns: number;
  /** Asks the model with a prompt of the host's own (after `delayMs`). */
  prompt(prompt: TPrompt): void;
  /** Resolves once no model turn is running (one still waiting for its delay is not waited for). */
  idle(): Promise<void>;
  /** Listens to an event; returns the function that stops listening. */
  on<K extends keyof ProtocolAgentEvents<TPrompt> & string>(
    event: K,
    listener: (payload: ProtocolAgentEvents<TPrompt>[K]) => void,
  ): Unsubscribe;
  /** Stops listening, clears its timers and aborts a model call in flight; the correlator stays open. */
  close(): void;
}
