import { RunState, type RunToolApprovalItem } from '@openai/agents';
import { type ConfirmDecision, createConfirmGate, type ResumeHandler } from '@parley/confirm';
import { canonicalJson, createMemoryStore, type JsonValue, systemClock } from '@parley/core';
import { approve, type Consent, runRecorded } from './internal/effects.js';
import { AgentsBridgeError } from './errors.js';
import { argsOf, type AuthorizeRefusalCode, callIdOf, PROMPT_FAILED, REJECTIONS } from './internal/items.js';
import { createRecords, type RunRecord } from './records.js';
import type { AgentsBridge, AgentsBridgeOptions, AgentsResumeOutcome, AgentsRunOutcome } from './types.js';

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
  const resumeLeaseMs = options.resumeLeaseMs ?? DEFAULT_RESUME_LEASE_MS;
  const onResumed = options.onResumed;
  const resume: Record<string, ResumeHandler> = {};
  if (onResumed !== undefined) {
    const handler: ResumeHandler = async (decision) => {
      const approval = await records.findUnclaimed({
        sessionKey: decision.sessionKey,
        tool: decision.action.name,
        args: decision.action.args,
      });
      if (approval === undefined || !(await records.claim(approval.runId, approval.callId, decision.id)))
        return;
      await answerTheRest(approval.runId, true);
      const resumed = await continueRun(approval.runId);
      // elsewhere: other answers of the run are still awaited, or another process took it
      if (resumed.status === 'elsewhere') return;
      const outcome =
        resumed.status === 'unknown_outcome' ? resumed : await resumedRun(approval.runId, resumed);
      await onResumed({ runId: approval.runId, outcome });
    };
    for (const tool of agent.tools) resume[tool.name] = handler;
  }
  const confirmGate = createConfirmGate({ ...options.confirm, store, clock, resume });

  type Result = Extract<AgentsRunOutcome<TContext>, { status: 'completed' }>['result'];
  interface Where {
    readonly runId: string;
    readonly sessionKey: string;
    readonly requester: string;
    readonly timeoutMs?: number | undefined;
    readonly fresh: boolean;
  }

  /** Asks about the result's interruptions and resumes the run until none is left (or it moves elsewhere). */
  async function settle(first: Result, where: Where): Promise<AgentsRunOutcome<TContext>> {
    let result = first;
    let fresh = where.fresh;
    while (result.interruptions.length > 0) {
      const items = result.interruptions;
      const current = await records.readRun(where.runId);
      if (fresh && current?.record.status === 'waiting') {
        throw new AgentsBridgeError('run_pending', `The run "${where.runId}" already waits for an answer`, {
          details: { runId: where.runId },
        });
      }
      fresh = false;
      const written = await records.writeRun(
        {
          runId: where.runId,
          state: result.state.toString(),
          status: 'waiting',
          sessionKey: where.sessionKey,
          requester: where.requester,
          callIds: items.map(callIdOf),
        },
        current?.version ?? null,
      );
      if (!written) return { status: 'elsewhere' };
      const decisions = await Promise.all(items.map((item) => ask(item, where)));
      if (decisions.some((decision) => decision.reason === 'closed')) return { status: 'elsewhere' };
      const claimed = await Promise.all(
        decisions.map((decision, index) =>
          records.claim(where.runId, callIdOf(items[index] as RunToolApprovalItem), decision.id),
        ),
      );
      if (claimed.some((won) => !won)) return { status: 'elsewhere' };
      const next = await continueRun(where.runId);
      if (next.status !== 'taken') return next;
      result = next.result;
    }
    const done = await records.readRun(where.runId);
    if (done !== undefined)
      await records.writeRun({ ...done.record, status: 'done', state: '' }, done.version);
    return { status: 'completed', result };
  }

  async function ask(item: RunToolApprovalItem, where: Where): Promise<ConfirmDecision> {
    const tool = item.name as string; // function tool approvals carry the tool's name
    const args = argsOf(item);
    await records.writeApproval({
      runId: where.runId,
      callId: callIdOf(item),
      tool,
      args,
      sessionKey: where.sessionKey,
      createdAt: clock.now(),
    });
    return confirmGate.request({
      sessionKey: where.sessionKey,
      requester: where.requester,
      action: { name: tool, args },
      summary: `${tool} ${canonicalJson(args)}`,
      ...(where.timeoutMs === undefined ? {} : { timeoutMs: where.timeoutMs }),
    });
  }

  /**
   * After a restart, the run's other approvals: one answered before the restart is taken from the
   * confirm gate's audit trail, one never asked (queued behind the first when the process stopped)
   * is asked now, in the run's chat. Each is claimed for the run, once.
   */
  async function answerTheRest(runId: string, askNow: boolean): Promise<boolean> {
    const run = await records.readRun(runId);
    if (run === undefined || run.record.status !== 'waiting') return false;
    for (const callId of run.record.callIds) {
      const entry = await records.readApproval(runId, callId);
      if (entry === undefined || entry.record.decisionId !== undefined) continue;
      const { tool, args, sessionKey, createdAt } = entry.record;
      const action = { name: tool, args };
      const summary = `${tool} ${canonicalJson(args)}`;
      const decision =
        (await decidedSince(sessionKey, action, createdAt)) ??
        (askNow
          ? await confirmGate.request({ sessionKey, requester: run.record.requester, action, summary })
          : undefined);
      if (decision === undefined) return false;
      if (decision.reason === 'closed') return false; // this process stops too: the next one asks
      await records.claim(runId, callId, decision.id); // lost: another process claimed it, as well
    }
    return true;
  }

  /** A decision of the audit trail about exactly this action in this chat, made since `since`. */
  async function decidedSince(
    sessionKey: string,
    action: { readonly name: string; readonly args: JsonValue },
    since: number,
  ): Promise<ConfirmDecision | undefined> {
    const wanted = canonicalJson(action.args);
    for await (const decision of confirmGate.audit()) {
      const same =
        decision.sessionKey === sessionKey &&
        decision.action.name === action.name &&
        canonicalJson(decision.action.args) === wanted &&
        decision.decidedAt >= since;
      if (same && decision.reason !== 'closed') return decision;
    }
    return undefined;
  }

  type Unknown = Extract<AgentsRunOutcome<TContext>, { status: 'unknown_outcome' }>;
  type Elsewhere = Extract<AgentsRunOutcome<TContext>, { status: 'elsewhere' }>;
  type Taken = { readonly status: 'taken'; readonly result: Result; readonly run: RunRecord };
  const ELSEWHERE: Elsewhere = { status: 'elsewhere' };
  /** Asks about a resumed run's further interruptions and resumes it until it is done. */
  const resumedRun = (runId: string, { result, run }: Taken): Promise<AgentsRunOutcome<TContext>> =>
    settle(result, { runId, sessionKey: run.sessionKey, requester: run.requester, fresh: false });
  const unknown = (claim: { owner: string; claimedAt: number } | undefined): Unknown => ({
    status: 'unknown_outcome',
    resumedBy: claim?.owner ?? null,
    resumedAt: claim?.claimedAt ?? null,
  });

  /**
   * Takes a waiting run whose approvals are all decided and resumes it: its resumption is claimed
   * first (a kernel claim with a lease), then the run moves to `resuming` by compare-and-set. A
   * resumption claimed by a process whose lease ended without a result is an unknown outcome.
   */
  async function continueRun(runId: string): Promise<Taken | Elsewhere | Unknown> {
    const run = await records.readRun(runId);
    if (run === undefined || run.record.status !== 'waiting') return ELSEWHERE;
    const approvals = await Promise.all(
      run.record.callIds.map((callId) => records.readApproval(runId, callId)),
    );
    if (approvals.some((approval) => approval?.record.decisionId === undefined)) return ELSEWHERE;
    const taken = await records.claimResume(runId, run.version, resumeLeaseMs);
    if (taken.status === 'unknown') return unknown(taken);
    if (taken.status !== 'claimed') return ELSEWHERE; // in flight or resumed elsewhere
    if (!(await records.writeRun({ ...run.record, status: 'resuming' }, run.version))) {
      await records.endResume(taken.claim, false); // another process changed the run first: nothing ran
      return ELSEWHERE;
    }
    const state = await RunState.fromString(agent, run.record.state);
    const decided = new Map(approvals.map((entry) => [entry?.record.callId, entry?.record.decisionId]));
    const consents: Consent[] = []; // what was authorized: its effect goes into the gate's ledger
    for (const item of state.getInterruptions()) {
      const action = { name: item.name as string, args: argsOf(item) }; // a function tool call
      const id = String(decided.get(callIdOf(item)));
      const auth = await confirmGate.authorize(id, action); // none: unknown_decision
      if (!auth.ok) state.reject(item, { message: await rejectionOf(id, auth.code) });
      else consents.push(approve(state, item, auth.decision));
    }
    const resume = () => runner.run(agent, state) as Promise<Result>; // the same agent, from its state
    const result = await runRecorded(options.confirm.ledger, consents, resume);
    await records.endResume(taken.claim, true);
    return { status: 'taken', result, run: run.record };
  }

  /**
   * A run some process took for resuming (at revision `version`): `elsewhere` while its claim's
   * lease lasts, then an unknown outcome (also for a claim settled by a process that died before it
   * wrote what the run came to, and for a run taken before resumptions were claimed).
   */
  async function resuming(runId: string, version: number): Promise<AgentsResumeOutcome<TContext>> {
    const claim = await records.readResume(runId, version - 1);
    const lease = claim?.lease ?? null;
    const running =
      claim !== undefined && !claim.value.settled && lease !== null && clock.now() < lease.expiresAt;
    return running ? { status: 'elsewhere' } : unknown(claim?.value);
  }

  /** What the model is told of a refused call: a prompt that was never shown is no "not confirmed". */
  async function rejectionOf(decisionId: string, code: AuthorizeRefusalCode): Promise<string> {
    if (code !== 'not_confirmed') return REJECTIONS[code];
    const decision = await confirmGate.reconcile(decisionId); // the recorded decision, read back
    return decision?.outcome === 'aborted' && decision.reason === 'prompt_failed'
      ? PROMPT_FAILED
      : REJECTIONS[code];
  }

  return {
    async run(run) {
      if (typeof run?.runId !== 'string' || run.runId === '')
        throw new AgentsBridgeError('invalid_argument', 'run needs a runId');
      const result = (await runner.run(
        agent,
        run.input,
        run.context === undefined ? {} : { context: run.context },
      )) as Result;
      return settle(result, {
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
      if (run.record.status === 'resuming') return resuming(runId, run.version);
      if (run.record.status !== 'waiting') return { status: 'elsewhere' };
      if (!(await answerTheRest(runId, false))) return { status: 'waiting' };
      const resumed = await continueRun(runId);
      return resumed.status === 'taken' ? resumedRun(runId, resumed) : resumed;
    },
    confirmGate,
    ready: confirmGate.ready,
    close: () => confirmGate.close(),
  };
}
