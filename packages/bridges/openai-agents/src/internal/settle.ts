// A run's interruptions asked in chat, and the run resumed with the answers until it completes.
import type { RunToolApprovalItem } from '@openai/agents';
import type { ConfirmDecision, ResumeHandler } from '@parley/confirm';
import { canonicalJson } from '@parley/core';
import { AgentsBridgeError } from '../errors.js';
import type { AgentsBridgeOptions, AgentsRunOutcome } from '../types.js';
import type { Records } from '../records.js';
import type { Flow, Result, Taken, Where } from './flow.js';
import { argsOf, callIdOf } from './items.js';
import { answerTheRest, continueRun } from './resume.js';

/** @internal Asks about the result's interruptions and resumes the run until none is left (or it moves elsewhere). */
export async function settle<TContext>(
  flow: Flow<TContext>,
  first: Result<TContext>,
  where: Where,
): Promise<AgentsRunOutcome<TContext>> {
  const { records } = flow;
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
    const decisions = await Promise.all(items.map((item) => ask(flow, item, where)));
    if (decisions.some((decision) => decision.reason === 'closed')) return { status: 'elsewhere' };
    const claimed = await Promise.all(
      decisions.map((decision, index) =>
        records.claim(where.runId, callIdOf(items[index] as RunToolApprovalItem), decision.id),
      ),
    );
    if (claimed.some((won) => !won)) return { status: 'elsewhere' };
    const next = await continueRun(flow, where.runId);
    if (next.status !== 'taken') return next;
    result = next.result;
  }
  const done = await records.readRun(where.runId);
  if (done !== undefined) await records.writeRun({ ...done.record, status: 'done', state: '' }, done.version);
  return { status: 'completed', result };
}

async function ask<TContext>(
  flow: Flow<TContext>,
  item: RunToolApprovalItem,
  where: Where,
): Promise<ConfirmDecision> {
  const tool = item.name as string; // function tool approvals carry the tool's name
  const args = argsOf(item);
  await flow.records.writeApproval({
    runId: where.runId,
    callId: callIdOf(item),
    tool,
    args,
    sessionKey: where.sessionKey,
    createdAt: flow.clock.now(),
  });
  return flow.confirmGate.request({
    sessionKey: where.sessionKey,
    requester: where.requester,
    action: { name: tool, args },
    summary: `${tool} ${canonicalJson(args)}`,
    ...(where.timeoutMs === undefined ? {} : { timeoutMs: where.timeoutMs }),
  });
}

/** @internal Asks about a resumed run's further interruptions and resumes it until it is done. */
export function resumedRun<TContext>(
  flow: Flow<TContext>,
  runId: string,
  { result, run }: Taken<TContext>,
): Promise<AgentsRunOutcome<TContext>> {
  return settle(flow, result, { runId, sessionKey: run.sessionKey, requester: run.requester, fresh: false });
}

/**
 * @internal The confirm gate's resume handler: an approval answered after a restart (or on another
 * gate) claims its call, answers the run's other approvals, resumes the run and hands its outcome
 * to `onResumed`, once per run.
 */
export function resumeHandler<TContext>(
  records: Records,
  flow: () => Flow<TContext>, // the bridge's, once its confirm gate (which holds this handler) exists
  onResumed: NonNullable<AgentsBridgeOptions<TContext>['onResumed']>,
): ResumeHandler {
  return async (decision) => {
    const approval = await records.findUnclaimed({
      sessionKey: decision.sessionKey,
      tool: decision.action.name,
      args: decision.action.args,
    });
    if (approval === undefined || !(await records.claim(approval.runId, approval.callId, decision.id)))
      return;
    await answerTheRest(flow(), approval.runId, true);
    const resumed = await continueRun(flow(), approval.runId);
    // elsewhere: other answers of the run are still awaited, or another process took it
    if (resumed.status === 'elsewhere') return;
    const outcome =
      resumed.status === 'unknown_outcome' ? resumed : await resumedRun(flow(), approval.runId, resumed);
    await onResumed({ runId: approval.runId, outcome });
  };
}
