// Resuming a stored run: the approvals answered elsewhere, the resumption claim and the run itself.
import { RunState } from '@openai/agents';
import type { ConfirmDecision, ConfirmGate } from '@parley/confirm';
import { canonicalJson, type JsonValue } from '@parley/core';
import type { AgentsResumeOutcome } from '../types.js';
import { approve, type Consent, runRecorded } from './effects.js';
import { type Elsewhere, type Flow, type Result, type Taken, type Unknown, unknownOutcome } from './flow.js';
import { argsOf, type AuthorizeRefusalCode, callIdOf, PROMPT_FAILED, REJECTIONS } from './items.js';

/**
 * @internal After a restart, the run's other approvals: one answered before the restart is taken
 * from the confirm gate's audit trail, one never asked (queued behind the first when the process
 * stopped) is asked now, in the run's chat. Each is claimed for the run, once.
 */
export async function answerTheRest<TContext>(
  flow: Flow<TContext>,
  runId: string,
  askNow: boolean,
): Promise<boolean> {
  const { records, confirmGate } = flow;
  const run = await records.readRun(runId);
  if (run === undefined || run.record.status !== 'waiting') return false;
  for (const callId of run.record.callIds) {
    const entry = await records.readApproval(runId, callId);
    if (entry === undefined || entry.record.decisionId !== undefined) continue;
    const { tool, args, sessionKey, createdAt } = entry.record;
    const action = { name: tool, args };
    const summary = `${tool} ${canonicalJson(args)}`;
    const decision =
      (await decidedSince(confirmGate, sessionKey, action, createdAt)) ??
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
  confirmGate: ConfirmGate,
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

/**
 * @internal Takes a waiting run whose approvals are all decided and resumes it: its resumption is
 * claimed first (a kernel claim with a lease), then the run moves to `resuming` by compare-and-set.
 * A resumption claimed by a process whose lease ended without a result is an unknown outcome.
 */
export async function continueRun<TContext>(
  flow: Flow<TContext>,
  runId: string,
): Promise<Taken<TContext> | Elsewhere<TContext> | Unknown<TContext>> {
  const { records, confirmGate, agent, runner } = flow;
  const elsewhere: Elsewhere<TContext> = { status: 'elsewhere' };
  const run = await records.readRun(runId);
  if (run === undefined || run.record.status !== 'waiting') return elsewhere;
  const approvals = await Promise.all(
    run.record.callIds.map((callId) => records.readApproval(runId, callId)),
  );
  if (approvals.some((approval) => approval?.record.decisionId === undefined)) return elsewhere;
  const taken = await records.claimResume(runId, run.version, flow.resumeLeaseMs);
  if (taken.status === 'unknown') return unknownOutcome(taken);
  if (taken.status !== 'claimed') return elsewhere; // in flight or resumed elsewhere
  if (!(await records.writeRun({ ...run.record, status: 'resuming' }, run.version))) {
    await records.endResume(taken.claim, false); // another process changed the run first: nothing ran
    return elsewhere;
  }
  const state = await RunState.fromString(agent, run.record.state);
  const decided = new Map(approvals.map((entry) => [entry?.record.callId, entry?.record.decisionId]));
  const consents: Consent[] = []; // what was authorized: its effect goes into the gate's ledger
  for (const item of state.getInterruptions()) {
    const action = { name: item.name as string, args: argsOf(item) }; // a function tool call
    const id = String(decided.get(callIdOf(item)));
    const auth = await confirmGate.authorize(id, action); // none: unknown_decision
    if (!auth.ok) state.reject(item, { message: await rejectionOf(confirmGate, id, auth.code) });
    else consents.push(approve(state, item, auth.decision));
  }
  const resume = () => runner.run(agent, state) as Promise<Result<TContext>>; // the same agent, from its state
  const result = await runRecorded(flow.ledger, consents, resume);
  await records.endResume(taken.claim, true);
  return { status: 'taken', result, run: run.record };
}

/**
 * @internal A run some process took for resuming (at revision `version`): `elsewhere` while its
 * claim's lease lasts, then an unknown outcome (also for a claim settled by a process that died
 * before it wrote what the run came to, and for a run taken before resumptions were claimed).
 */
export async function resuming<TContext>(
  flow: Flow<TContext>,
  runId: string,
  version: number,
): Promise<AgentsResumeOutcome<TContext>> {
  const claim = await flow.records.readResume(runId, version - 1);
  const lease = claim?.lease ?? null;
  const running =
    claim !== undefined && !claim.value.settled && lease !== null && flow.clock.now() < lease.expiresAt;
  return running ? { status: 'elsewhere' } : unknownOutcome(claim?.value);
}

/** What the model is told of a refused call: a prompt that was never shown is no "not confirmed". */
async function rejectionOf(
  confirmGate: ConfirmGate,
  decisionId: string,
  code: AuthorizeRefusalCode,
): Promise<string> {
  if (code !== 'not_confirmed') return REJECTIONS[code];
  const decision = await confirmGate.reconcile(decisionId); // the recorded decision, read back
  return decision?.outcome === 'aborted' && decision.reason === 'prompt_failed'
    ? PROMPT_FAILED
    : REJECTIONS[code];
}
