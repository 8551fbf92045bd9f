import type { AnyToolDefinition } from '../define.js';
import { ToolsError } from '../errors.js';
import type { ToolPolicy } from '../hook-types.js';
import type { RepairRecord } from '../types.js';
import { baseOfParts, finalRepair, type Judging, type Parts } from './judging.js';
import { refuse } from './refuse.js';
import { confirmThenRun } from './run.js';
import type { Settled } from './runtime.js';

// The state-dependent policies of a call whose name and arguments passed, in order; each may
// answer with a promise, and the rest run after it.

/** A call whose name and arguments passed: the policies, then the confirmation, then the run. */
export function allowed<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  args: unknown,
  repair: RepairRecord | undefined,
): Settled | Promise<Settled> {
  const done = finalRepair(repair, true);
  // checkArgs only passes objects; a call that runs as requested (no repair, its own name, no
  // reason) records what it asked for as what ran: the same two fields, in one object
  const { requested } = j;
  const ran =
    requested.tool === tool.name && requested.args === args && requested.reason === undefined
      ? (requested as { readonly tool: string; readonly args: Readonly<Record<string, unknown>> })
      : { tool: tool.name, args: args as Readonly<Record<string, unknown>> };
  const parts: Parts = {
    id: j.call.id,
    requested,
    ran,
    done,
    confirmationId: undefined,
  };
  return policiesFrom(j, tool, value, parts, 0);
}

/** Runs the policies from `index` on; a refusal, or on to the confirmation when all pass. */
function policiesFrom<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  parts: Parts,
  index: number,
): Settled | Promise<Settled> {
  const { rt, call, run } = j;
  for (let i = index; i < rt.policies.length; i++) {
    const policy = rt.policies[i] as ToolPolicy<TContext>;
    if (policy.tools !== undefined && !policy.tools.includes(tool.name)) continue;
    let answer: ReturnType<typeof policy.check>;
    try {
      answer = policy.check({
        call: { id: call.id, reason: call.reason, tool: tool.name },
        args: value,
        context: run.context,
        turn: run.turn,
        now: rt.clock.now(),
      });
    } catch (error) {
      return policyFailed(j, tool, parts, error);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (verdict) => verdictThen(j, tool, value, parts, policy, verdict, i),
        (error: unknown) => policyFailed(j, tool, parts, error),
      );
    }
    const refused = verdictOf(j, tool, parts, policy, answer);
    if (refused !== undefined) return refused;
  }
  return confirmThenRun(j, tool, value, parts);
}

/** Continues the policies after an asynchronous verdict. */
function verdictThen<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  value: unknown,
  parts: Parts,
  policy: ToolPolicy<TContext>,
  verdict: PolicyVerdict,
  index: number,
): Settled | Promise<Settled> {
  const refused = verdictOf(j, tool, parts, policy, verdict);
  return refused ?? policiesFrom(j, tool, value, parts, index + 1);
}

type PolicyVerdict = Awaited<ReturnType<ToolPolicy<unknown>['check']>>;

/** The refusal a policy's verdict makes, or `undefined` when it lets the call through. */
function verdictOf<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  parts: Parts,
  policy: ToolPolicy<TContext>,
  verdict: PolicyVerdict,
): Settled | undefined {
  const { rt, run } = j;
  if (verdict === undefined || verdict === true) return undefined;
  if (
    typeof verdict === 'object' &&
    verdict.toolReason !== undefined &&
    !tool.reasons.includes(verdict.toolReason)
  ) {
    const error = new ToolsError(
      'invalid_argument',
      `The policy "${policy.name}" gave the reason "${verdict.toolReason}", which "${tool.name}" does not declare`,
      { details: { policy: policy.name, tool: tool.name } },
    );
    return policyFailed(j, tool, parts, error);
  }
  const refusal = verdict === false ? {} : verdict;
  const message =
    refusal.message ?? refusal.reason ?? `The tool "${tool.name}" is not allowed now (${policy.name})`;
  if (refusal.disableUntil !== undefined) rt.disable(tool.name, refusal.disableUntil, message);
  return refuse(rt, run.turn, baseOfParts(parts), 'not_allowed', message, {
    repair: parts.done,
    ran: parts.ran,
    toolReason: refusal.toolReason,
    until: refusal.disableUntil,
  });
}

function policyFailed<TContext>(
  j: Judging<TContext>,
  tool: AnyToolDefinition,
  parts: Parts,
  error: unknown,
): Settled {
  const { rt, call, run } = j;
  rt.emit('error', { turn: run.turn, id: call.id, tool: tool.name, stage: 'policy', error });
  return refuse(
    rt,
    run.turn,
    baseOfParts(parts),
    'policy_error',
    `The tool "${tool.name}" could not be checked, so it was not run`,
    { repair: parts.done, ran: parts.ran },
  );
}
