import { createConfirmGate, type ResumeHandler } from '@parley/confirm';
import { createMemoryStore, systemClock } from '@parley/core';
import { AgentsBridgeError } from './errors.js';
import type { Flow, Result } from './internal/flow.js';
import { continueRun, answerTheRest, resuming } from './internal/resume.js';
import { resumedRun, resumeHandler, settle } from './internal/settle.js';
import { createRecords } from './records.js';
import type { AgentsBridge, AgentsBridgeOptions } from './types.js';

const DEFAULT_RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_RESUME_LEASE_MS = 10 * 60_000;

/**
 * Answers OpenAI Agents JS `needsApproval` interruptions through a Parley confirm gate in the
 * user's chat (reply words or card buttons, a deadline), keeping the `RunState` in the Parley
 * `Store`, so that a restart or another replica resumes the run exactly once (compare-and-set). The
 * approval is bound to the call's exact arguments: the resumed state's call is approved only if the
 * recorded decision covers them (the action digest), once, before its deadline; otherwise it is
 * rejected with the reason, which the model reads.
 *
 * Use one bridge per agent: `await bridge.run({ runId, input, sessionKey, requester })` replaces
 * `runner.run(agent, input)`. Give tools Parley policies with {@link toInputGuardrail}.
 *
 * @throws AgentsBridgeError `invalid_argument` without an agent or runner.
 * @example
 * ```ts
 * import { Agent, Runner } from '@openai/agents';
 * import { createMessageBus } from '@parley/bus';
 * import { createAgentsBridge } from '@parley/openai-agents';
 *
 * const bridge = createAgentsBridge({
 *   agent: new Agent({ name: 'ops', instructions: 'Help.' }),
 *   runner: new Runner({ tracingDisabled: true }),
 *   confirm: { bus: createMessageBus() },
 * });
 * await bridge.ready;
 * console.log(bridge.confirmGate.pending()); // []
 * await bridge.close();
 * ```
 */
export function createAgentsBridge<TContext = unknown>(
  options: AgentsBridgeOptions<TContext>,
): AgentsBridge<TContext> {
  const { agent, runner } = options;
  if (typeof agent !== 'object' || agent === null || typeof runner?.run !== 'function') {
    throw new AgentsBridgeError('invalid_argument', 'createAgentsBridge needs an agent and a runner');
  }
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const records = createRecords(
    store,
    options.keyPrefix ?? 'parley:agents:',
    options.recordTtlMs ?? DEFAULT_RECORD_TTL_MS,
    clock,
  );
  const onResumed = options.onResumed;
  const resume: Record<string, ResumeHandler> = {};
  if (onResumed !== undefined) {
    const handler = resumeHandler(records, () => flow, onResumed);
    for (const tool of agent.tools) resume[tool.name] = handler;
  }
  const confirmGate = createConfirmGate({ ...options.confirm, store, clock, resume });
  const flow: Flow<TContext> = {
    agent,
    runner,
    records,
    confirmGate,
    clock,
    ledger: options.confirm.ledger,
    resumeLeaseMs: options.resumeLeaseMs ?? DEFAULT_RESUME_LEASE_MS,
  };

  return {
    async run(run) {
      if (typeof run?.runId !== 'string' || run.runId === '')
        throw new AgentsBridgeError('invalid_argument', 'run needs a runId');
      const result = (await runner.run(
        agent,
        run.input,
        run.context === undefined ? {} : { context: run.context },
      )) as Result<TContext>;
      return settle(flow, result, {
        runId: run.runId,
        sessionKey: run.sessionKey,
        requester: run.requester,
        timeoutMs: run.timeoutMs,
        fresh: true,
      });
    },
    async resume(runId) {
      const run = await records.readRun(runId);
      if (run === undefined) return { status: 'unknown_run' };
      if (run.record.status === 'resuming') return resuming(flow, runId, run.version);
      if (run.record.status !== 'waiting') return { status: 'elsewhere' };
      if (!(await answerTheRest(flow, runId, false))) return { status: 'waiting' };
      const resumed = await continueRun(flow, runId);
      return resumed.status === 'taken' ? resumedRun(flow, runId, resumed) : resumed;
    },
    confirmGate,
    ready: confirmGate.ready,
    close: () => confirmGate.close(),
  };
}
