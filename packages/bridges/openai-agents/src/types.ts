import type { Agent, AgentInputItem, AgentOutputType, Runner, RunResult } from '@openai/agents';
import type { ConfirmGate, ConfirmGateOptions } from '@parley/confirm';
import type { Clock, Store } from '@parley/core';

/**
 * Options for {@link createAgentsBridge}.
 *
 * @example
 * ```ts
 * import { Agent, Runner } from '@openai/agents';
 * import { createMessageBus } from '@parley/bus';
 * import type { AgentsBridgeOptions } from '@parley/openai-agents';
 *
 * const options: AgentsBridgeOptions<unknown> = {
 *   agent: new Agent({ name: 'ops', instructions: 'Help.' }),
 *   runner: new Runner({ tracingDisabled: true }),
 *   confirm: { bus: createMessageBus() },
 * };
 * ```
 */
export interface AgentsBridgeOptions<TContext> {
  /** The agent runs start with, and the one `RunState.fromString` restores them with. */
  readonly agent: Agent<TContext>;
  readonly runner: Runner;
  /** The confirm gate's options, without `store`, `clock` and `resume`, which the bridge sets. */
  readonly confirm: Omit<ConfirmGateOptions, 'store' | 'clock' | 'resume'>;
  /** Where run states, approvals and decisions live; in memory by default. Share it between replicas. */
  readonly store?: Store;
  readonly clock?: Clock;
  /** Prefix of the bridge's store keys; `parley:agents:` by default. */
  readonly keyPrefix?: string;
  /** How long run and approval records live; 7 days by default. */
  readonly recordTtlMs?: number;
  /**
   * How long a process that took a run for resuming holds it (the lease of its claim): while it
   * lasts, other processes get `elsewhere`; once it ended without the run's next state written, the
   * run's outcome is reported as `unknown_outcome`, never run again. 10 minutes by default.
   */
  readonly resumeLeaseMs?: number;
  /**
   * Gets the outcome of a run whose approval was answered after a restart (or on another gate),
   * exactly once per run. Without it, such an answer is told that the approval expired.
   */
  readonly onResumed?: (resumed: {
    readonly runId: string;
    readonly outcome: AgentsRunOutcome<TContext>;
  }) => void | Promise<void>;
}

/**
 * What {@link AgentsBridge.run} takes: a run id unique per run (a conversation turn), the input,
 * whose chat to ask, and the run context.
 *
 * @example
 * ```ts
 * import type { AgentsRunOptions } from '@parley/openai-agents';
 *
 * const run: AgentsRunOptions<null> = { runId: 'turn-1', input: 'Drop orders', sessionKey: 'tg:1', requester: 'u1' };
 * ```
 */
export interface AgentsRunOptions<TContext> {
  readonly runId: string;
  readonly input: string | AgentInputItem[];
  readonly sessionKey: string;
  readonly requester: string;
  readonly context?: TContext;
  /** The wait for each approval; the confirm gate's default otherwise. */
  readonly timeoutMs?: number;
}

/**
 * How a run ended here: `completed` with the SDK's result (no interruption left), `elsewhere`
 * when another process took it (a resume on another replica, or this bridge closed while waiting),
 * or `unknown_outcome` when a process took it for resuming and stopped (crashed) before it wrote
 * what the run came to: its tools may have run, so it is reported (who took it, when) and never
 * run again; a person or the host decides.
 *
 * @example
 * ```ts
 * import type { AgentsRunOutcome } from '@parley/openai-agents';
 *
 * const text = (outcome: AgentsRunOutcome<unknown>): unknown => (outcome.status === 'completed' ? outcome.result.finalOutput : undefined);
 * ```
 */
export type AgentsRunOutcome<TContext> =
  | { readonly status: 'completed'; readonly result: RunResult<TContext, Agent<TContext, AgentOutputType>> }
  | { readonly status: 'elsewhere' }
  | {
      readonly status: 'unknown_outcome';
      readonly resumedBy: string | null;
      readonly resumedAt: number | null;
    };

/**
 * What {@link AgentsBridge.resume} came to: the run's outcome (`elsewhere` when another process
 * resumes or resumed it), `waiting` when an approval of the run is still unanswered, or
 * `unknown_run` when no run of that id is stored (never run here, or expired).
 *
 * @example
 * ```ts
 * import type { AgentsResumeOutcome } from '@parley/openai-agents';
 *
 * const resumedHere = (outcome: AgentsResumeOutcome<unknown>): boolean => outcome.status === 'completed';
 * ```
 */
export type AgentsResumeOutcome<TContext> =
  | AgentsRunOutcome<TContext>
  | { readonly status: 'waiting' }
  | { readonly status: 'unknown_run' };

/**
 * A bridge made by {@link createAgentsBridge}.
 *
 * @example
 * ```ts
 * import type { AgentsBridge } from '@parley/openai-agents';
 *
 * const close = (bridge: AgentsBridge<unknown>): Promise<void> => bridge.close();
 * ```
 */
export interface AgentsBridge<TContext> {
  /**
   * Runs the agent; every `needsApproval` interruption is asked in chat, and the run is resumed
   * with the answers until it completes.
   * @throws AgentsBridgeError `run_pending` when this run id already waits; `invalid_argument` for an empty run id.
   */
  run(options: AgentsRunOptions<TContext>): Promise<AgentsRunOutcome<TContext>>;
  /**
   * Resumes a stored run whose approvals were all answered (e.g. a sweep of a process that
   * restarted after the answers were given), asking nothing: answers are read from the confirm
   * gate's audit trail. Several processes may call it for the same run; exactly one resumes it,
   * the others get `{ status: 'elsewhere' }`.
   */
  resume(runId: string): Promise<AgentsResumeOutcome<TContext>>;
  readonly confirmGate: ConfirmGate;
  /** Resolves once approvals pending before a restart are loaded. */
  readonly ready: Promise<void>;
  /** Closes the confirm gate; waiting runs stay in the store for the next process. */
  close(): Promise<void>;
}
