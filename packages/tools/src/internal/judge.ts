import { type ValidationIssue, validateEither } from '@parley/core';
import { askConfirmation } from './confirm.js';
import type { CallBase, CheckedCall, Runtime, Settled } from './runtime.js';
import { disabledText, invalidText, refuse, unknownText } from './refuse.js';
import { type AnyToolDefinition, createRejection, isToolRejection } from '../define.js';
import { ToolsError } from '../errors.js';
import type { ToolRepairHook, ToolRunOptions } from '../gate-types.js';
import type { ExecutedToolCall, RepairRecord, ToolCallRecord } from '../types.js';

/**
 * Judges one well-formed call and runs it when every check passes. Never throws. Awaits only what
 * answers with a promise (a schema, policy, executor or store that is asynchronous): a call whose
 * checks and executor are synchronous costs no microtask inside. The caller emits `repaired`.
 */
export async function judgeCall<TContext>(
  rt: Runtime<TContext>,
  call: CheckedCall,
  run: ToolRunOptions<TContext>,
): Promise<Settled> {
  const { turn } = run;
  const requested: ToolCallRecord['requested'] = {
    tool: call.tool,
    args: call.args,
    ...(call.reason === undefined ? {} : { reason: call.reason }),
  };
  const meta = { id: call.id, reason: call.reason };
  let current = { tool: call.tool, args: call.args };
  let repair: RepairRecord | undefined;
  let tool: AnyToolDefinition | undefined;
  let value: unknown;
  const at = (name: string) => ({ id: call.id, tool: name, requested });

  for (;;) {
    tool = rt.byName.get(current.tool);
    let issues: readonly ValidationIssue[] = [];
    if (tool !== undefined) {
      const maybe = checkArgs(tool, current.args);
      const checked = maybe instanceof Promise ? await maybe : maybe;
      const off = rt.activeDisable(tool.name, turn);
      if (off !== undefined) {
        return refuse(rt, turn, at(tool.name), 'disabled', disabledText(off), {
          until: off.until,
          repair: finalRepair(repair, checked.ok),
        });
      }
      if (checked.ok) {
        value = checked.value;
        break;
      }
      issues = checked.issues;
    }
    const problem = tool === undefined ? 'unknown_tool' : 'invalid_args';
    if (rt.repair === undefined || repair !== undefined) {
      return problem === 'unknown_tool'
        ? refuse(rt, turn, at(current.tool), 'unknown_tool', unknownText(current.tool, rt.names), {
            repair: finalRepair(repair, false),
          })
        : refuse(rt, turn, at(current.tool), 'invalid_args', invalidText(issues), {
            issues,
            repair: finalRepair(repair, false),
          });
    }
    repair = await runRepair(rt, problem, { id: call.id, ...current }, issues, run);
    if (repair.repaired === undefined) {
      return problem === 'unknown_tool'
        ? refuse(rt, turn, at(current.tool), 'unknown_tool', unknownText(current.tool, rt.names), { repair })
        : refuse(rt, turn, at(current.tool), 'invalid_args', invalidText(issues), { issues, repair });
    }
    current = repair.repaired;
  }

  const args = current.args as Readonly<Record<string, unknown>>; // checkArgs only passes objects
  const ran = { tool: tool.name, args };
  const base = at(tool.name);
  const done = finalRepair(repair, true);
  const common = { repair: done, ran };

  for (const policy of rt.policies) {
    if (policy.tools !== undefined && !policy.tools.includes(tool.name)) continue;
    let verdict: Awaited<ReturnType<typeof policy.check>>;
    try {
      const answer = policy.check({
        call: { ...meta, tool: tool.name },
        args: value,
        context: run.context,
        turn,
        now: rt.clock.now(),
      });
      verdict = answer instanceof Promise ? await answer : answer;
      if (
        typeof verdict === 'object' &&
        verdict.toolReason !== undefined &&
        !tool.reasons.includes(verdict.toolReason)
      ) {
        throw new ToolsError(
          'invalid_argument',
          `The policy "${policy.name}" gave the reason "${verdict.toolReason}", which "${tool.name}" does not declare`,
          { details: { policy: policy.name, tool: tool.name } },
        );
      }
    } catch (error) {
      rt.emit('error', { turn, id: call.id, tool: tool.name, stage: 'policy', error });
      return refuse(
        rt,
        turn,
        base,
        'policy_error',
        `The tool "${tool.name}" could not be checked, so it was not run`,
        common,
      );
    }
    if (verdict === undefined || verdict === true) continue;
    const refusal =
      verdict === false ? { reason: `The tool "${tool.name}" is not allowed now (${policy.name})` } : verdict;
    if (refusal.disableUntil !== undefined) rt.disable(tool.name, refusal.disableUntil, refusal.reason);
    return refuse(rt, turn, base, 'not_allowed', refusal.reason, {
      ...common,
      toolReason: refusal.toolReason,
      until: refusal.disableUntil,
    });
  }

  const asked = askConfirmation(rt, tool, value, { ...meta, tool: tool.name }, run);
  const confirmed = asked instanceof Promise ? await asked : asked;
  if (confirmed.code !== undefined) {
    return refuse(rt, turn, base, confirmed.code, confirmed.text, {
      ...common,
      confirmationId: confirmed.id,
    });
  }
  // After a confirmation, the executor gets a fresh copy of exactly the arguments confirmed.
  const runs = confirmed.bound === undefined ? value : JSON.parse(confirmed.bound);
  const confirmationId = confirmed.id;
  const withId = { ...common, confirmationId };
  if (rt.persist !== undefined) {
    const claimed = { ...base, content: call.content };
    const answered = await rt.persist.claim(turn, claimed);
    if (answered !== undefined) return answered;
    const running = execute(rt, tool, call, run, runs, { base, requested, ran, done, withId });
    const settled = running instanceof Promise ? await running : running;
    await rt.persist.release(turn, claimed, settled);
    return settled;
  }
  return execute(rt, tool, call, run, runs, { base, requested, ran, done, withId });
}

/** Runs the executor of a call every check allowed; a promise only when the executor returns one. */
function execute<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  run: ToolRunOptions<TContext>,
  value: unknown,
  parts: Parts,
): Settled | Promise<Settled> {
  const { turn } = run;
  let result: unknown;
  try {
    result = tool.execute(value as never, {
      call: { id: call.id, reason: call.reason, tool: tool.name },
      context: run.context as never,
      turn,
      signal: run.signal,
      reject: (reason, message, options) => createRejection(reason, message, options?.disableUntil),
    });
  } catch (error) {
    return executorFailed(rt, tool, call, turn, parts, error);
  }
  if (!(result instanceof Promise)) return outcome(rt, tool, call, turn, parts, result);
  return result.then(
    (settled: unknown) => outcome(rt, tool, call, turn, parts, settled),
    (error: unknown) => executorFailed(rt, tool, call, turn, parts, error),
  );
}

interface Parts {
  readonly base: Omit<CallBase, 'content'>;
  readonly requested: ToolCallRecord['requested'];
  readonly ran: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> };
  readonly done: RepairRecord | undefined;
  readonly withId: {
    readonly repair: RepairRecord | undefined;
    readonly ran: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> };
    readonly confirmationId: string | undefined;
  };
}

function executorFailed<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  turn: number,
  parts: Parts,
  error: unknown,
): Settled {
  rt.emit('error', { turn, id: call.id, tool: tool.name, stage: 'execute', error });
  return refuse(
    rt,
    turn,
    parts.base,
    'executor_error',
    `The tool "${tool.name}" failed while running`,
    parts.withId,
  );
}

/** What the executor's answer makes of the call: executed, or refused with a declared reason. */
function outcome<TContext>(
  rt: Runtime<TContext>,
  tool: AnyToolDefinition,
  call: CheckedCall,
  turn: number,
  parts: Parts,
  result: unknown,
): Settled {
  const { base, requested, ran, done, withId } = parts;
  const { confirmationId } = withId;
  if (isToolRejection(result)) {
    if (!tool.reasons.includes(result.reason)) {
      const error = new ToolsError(
        'invalid_argument',
        `The tool "${tool.name}" refused with the undeclared reason "${result.reason}"`,
        { details: { tool: tool.name, reason: result.reason } },
      );
      return executorFailed(rt, tool, call, turn, parts, error);
    }
    if (result.disableUntil !== undefined) {
      rt.disable(tool.name, result.disableUntil, result.message ?? result.reason);
    }
    return refuse(
      rt,
      turn,
      base,
      'tool_refused',
      result.message ?? `The tool "${tool.name}" refused: ${result.reason}`,
      {
        ...withId,
        toolReason: result.reason,
        until: result.disableUntil,
      },
    );
  }
  const executed: ExecutedToolCall = {
    id: call.id,
    tool: tool.name,
    args: ran.args,
    result,
    replayed: false,
  };
  const record: ToolCallRecord = {
    id: call.id,
    turn,
    requested,
    ran,
    ...(done === undefined ? {} : { repair: done }),
    ...(confirmationId === undefined ? {} : { confirmationId }),
    outcome: 'executed',
    replayed: false,
  };
  return { record, executed, ran: true };
}

type Checked = { ok: true; value: unknown } | { ok: false; issues: readonly ValidationIssue[] };

/** The arguments checked by the tool's schema; a promise only when the schema validates asynchronously. */
function checkArgs(tool: AnyToolDefinition, args: unknown): Checked | Promise<Checked> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, issues: [{ path: [], pathText: '', message: 'The arguments must be an object' }] };
  }
  try {
    const result = validateEither(tool.args, args);
    if (!(result instanceof Promise)) return result.ok ? result : { ok: false, issues: result.issues };
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

/** Settles a pending repair's outcome once the repaired call has been judged. */
function finalRepair(repair: RepairRecord | undefined, valid: boolean): RepairRecord | undefined {
  if (repair === undefined || repair.repaired === undefined) return repair;
  return { ...repair, outcome: valid ? 'repaired' : 'still_invalid' };
}
