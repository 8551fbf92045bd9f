import { type ValidationIssue, validateEither } from '@parley/core';
import type { AnyToolDefinition } from '../define.js';
import type { ToolRunOptions } from '../gate-types.js';
import type { ToolRepairHook } from '../hook-types.js';
import type { RepairRecord, ToolCallRecord } from '../types.js';
import { at, finalRepair, type Judging, type Proposal } from './judging.js';
import { allowed } from './policies.js';
import { disabledText, invalidText, refuse, unknownText } from './refuse.js';
import type { CheckedCall, Runtime, Settled } from './runtime.js';
import { isPromise } from './promise.js';

/**
 * Judges one well-formed call and runs it when every check passes. Never throws. Answers with a
 * promise only when something it calls does (a schema, policy, repair hook, confirmation, executor
 * or store that is asynchronous): a call whose checks and executor are synchronous is judged and
 * run in one synchronous pass. The caller emits `repaired`.
 */
export function judgeCall<TContext>(
  rt: Runtime<TContext>,
  call: CheckedCall,
  requested: ToolCallRecord['requested'],
  run: ToolRunOptions<TContext>,
): Settled | Promise<Settled> {
  const j: Judging<TContext> = { rt, call, requested, run };
  const tool = rt.byName.get(call.tool);
  const checked = tool === undefined ? undefined : checkArgs(tool, call.args);
  // the call as proposed is the first proposal (read for its tool and arguments only)
  if (isPromise(checked)) return checked.then((done) => round(j, call, tool, done, undefined));
  return round(j, call, tool, checked, undefined);
}

/**
 * One round of name and argument checks for `current` (`tool` undefined when there is no such
 * tool): a refusal, a repair round, or on to the policies.
 */
function round<TContext>(
  j: Judging<TContext>,
  current: Proposal,
  tool: AnyToolDefinition | undefined,
  checked: Checked | undefined,
  repair: RepairRecord | undefined,
): Settled | Promise<Settled> {
  const { rt, run } = j;
  const turn = run.turn;
  let issues: readonly ValidationIssue[] = [];
  if (tool !== undefined && checked !== undefined) {
    const off = rt.activeDisable(tool.name, turn);
    if (off !== undefined) {
      return refuse(rt, turn, at(j, tool.name), 'disabled', disabledText(off), {
        until: off.until,
        repair: finalRepair(repair, checked.ok),
      });
    }
    if (checked.ok) return allowed(j, tool, checked.value, current.args, repair);
    issues = checked.issues;
  }
  if (rt.repair === undefined || repair !== undefined) {
    return refuseProposal(j, current, tool, issues, finalRepair(repair, false));
  }
  return repairRound(j, current, tool, issues);
}

/** The refusal of a proposal whose tool is unknown or whose arguments are invalid. */
function refuseProposal<TContext>(
  j: Judging<TContext>,
  current: Proposal,
  tool: AnyToolDefinition | undefined,
  issues: readonly ValidationIssue[],
  repair: RepairRecord | undefined,
): Settled {
  const { rt, run } = j;
  return tool === undefined
    ? refuse(rt, run.turn, at(j, current.tool), 'unknown_tool', unknownText(current.tool, rt.names), {
        repair,
      })
    : refuse(rt, run.turn, at(j, current.tool), 'invalid_args', invalidText(issues), { issues, repair });
}

/** Asks the repair hook once, then judges what it proposes (a second failure is final). */
async function repairRound<TContext>(
  j: Judging<TContext>,
  current: Proposal,
  tool: AnyToolDefinition | undefined,
  issues: readonly ValidationIssue[],
): Promise<Settled> {
  const problem = tool === undefined ? 'unknown_tool' : 'invalid_args';
  const proposed = { id: j.call.id, tool: current.tool, args: current.args };
  const repair = await runRepair(j.rt, problem, proposed, issues, j.run);
  if (repair.repaired === undefined) return refuseProposal(j, current, tool, issues, repair);
  const next = repair.repaired;
  const nextTool = j.rt.byName.get(next.tool);
  const maybe = nextTool === undefined ? undefined : checkArgs(nextTool, next.args);
  const checked = isPromise(maybe) ? await maybe : maybe;
  return round(j, next, nextTool, checked, repair);
}

type Checked = { ok: true; value: unknown } | { ok: false; issues: readonly ValidationIssue[] };

/** The arguments checked by the tool's schema; a promise only when the schema validates asynchronously. */
function checkArgs(tool: AnyToolDefinition, args: unknown): Checked | Promise<Checked> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, issues: [{ path: [], pathText: '', message: 'The arguments must be an object' }] };
  }
  try {
    const result = validateEither(tool.args, args);
    if (!isPromise(result)) return result.ok ? result : { ok: false, issues: result.issues };
    return result.then(
      (settled): Checked => (settled.ok ? settled : { ok: false, issues: settled.issues }),
      unvalidated,
    );
  } catch (error) {
    return unvalidated(error);
  }
}

function unvalidated(error: unknown): Checked {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    issues: [{ path: [], pathText: '', message: `The arguments could not be validated: ${message}` }],
  };
}

async function runRepair<TContext>(
  rt: Runtime<TContext>,
  problem: RepairRecord['problem'],
  call: { readonly id: string; readonly tool: string; readonly args: unknown },
  issues: readonly ValidationIssue[],
  run: ToolRunOptions<TContext>,
): Promise<RepairRecord> {
  const original = { tool: call.tool, args: call.args };
  let answer: Awaited<ReturnType<ToolRepairHook<TContext>>>;
  try {
    // rt.repair is defined: the caller checked it
    answer = await (rt.repair as ToolRepairHook<TContext>)({
      problem,
      call,
      issues,
      tools: rt.names,
      context: run.context,
      turn: run.turn,
    });
  } catch (error) {
    rt.emit('error', { turn: run.turn, id: call.id, tool: call.tool, stage: 'repair', error });
    return { problem, outcome: 'failed', original };
  }
  if (typeof answer !== 'object' || answer === null) return { problem, outcome: 'gave_up', original };
  const tool = typeof answer.tool === 'string' ? answer.tool : call.tool;
  const args = 'args' in answer ? answer.args : call.args;
  // The outcome is settled once the repaired call is judged (see finalRepair).
  return { problem, outcome: 'still_invalid', original, repaired: { tool, args } };
}
