import { TOOL_FAILURE_STATUSES } from '@parley/core';
import { ConflictError } from '../errors.js';
import { callKey } from './effects.js';
import type {
  AppliedAction,
  Conflict,
  DeferredCall,
  FailedCall,
  FailedCallIssue,
  Proposal,
  ToolCall,
  ToolFeedback,
} from '../types.js';

/** The detector name of conflicts about a malformed proposal. */
export const PROPOSAL_SHAPE = 'proposal_shape';

/** Checks a generator's output is a proposal; a malformed one becomes a conflict to retry. */
export function checkProposal(
  output: unknown,
  maxCalls: number,
):
  | { readonly ok: true; readonly value: Proposal; readonly keys: readonly string[] }
  | { readonly ok: false; readonly conflict: Conflict } {
  const problems: string[] = [];
  const keys: string[] = [];
  if (!isRecord(output)) problems.push('the output is not an object');
  else {
    if (typeof output['text'] !== 'string') problems.push('"text" is not a string');
    const calls = output['tool_calls'];
    if (calls !== undefined && !Array.isArray(calls)) problems.push('"tool_calls" is not a list');
    if (Array.isArray(calls) && calls.length > maxCalls) {
      problems.push(
        `"tool_calls" holds ${calls.length} calls, more than the ${maxCalls} allowed in one answer`,
      );
    } else if (Array.isArray(calls)) {
      const seen = new Set<string>();
      calls.forEach((call: unknown, index) => {
        const problem = callProblem(call);
        if (problem !== undefined) problems.push(`tool_calls[${index}] ${problem}`);
        else {
          const { id, tool, args } = call as ToolCall; // checked by callProblem
          if (seen.has(id)) problems.push(`tool_calls[${index}] repeats the id "${clip(id, 80)}"`);
          seen.add(id);
          try {
            keys.push(callKey(tool, args));
          } catch {
            problems.push(`tool_calls[${index}] has "args" that are not plain JSON`);
          }
        }
      });
    }
    if (output['structured'] !== undefined && !isRecord(output['structured'])) {
      problems.push('"structured" is not an object');
    }
  }
  if (problems.length === 0) return { ok: true, value: output as unknown as Proposal, keys }; // shape checked above
  return {
    ok: false,
    conflict: {
      detector: PROPOSAL_SHAPE,
      expected_state_snippet: {
        format:
          '{ "text": string, "tool_calls"?: [{ "id": string, "tool": string, "args": object, "reason"?: string }] }',
      },
      mismatch_reason: `The output is malformed: ${listed(problems)}`,
      instructions:
        'Reply in the requested format: the narrative in "text" and any action as a tool call with a unique "id", a "tool" name and an "args" object.',
    },
  };
}

/** At most this many problems are named in one conflict; the rest are counted. */
const MAX_PROBLEMS = 10;

function listed(problems: readonly string[]): string {
  const named = problems.slice(0, MAX_PROBLEMS).join('; ');
  return problems.length > MAX_PROBLEMS ? `${named}; and ${problems.length - MAX_PROBLEMS} more` : named;
}

/** Cuts text to at most `max` characters (whole code points), marking the cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const safe = /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
  return `${safe}…`;
}

function callProblem(call: unknown): string | undefined {
  if (!isRecord(call)) return 'is not an object';
  if (typeof call['id'] !== 'string' || call['id'] === '') return 'has no "id"';
  if (typeof call['tool'] !== 'string' || call['tool'] === '') return 'has no "tool"';
  if (!isRecord(call['args'])) return 'has no "args" object';
  if (call['reason'] !== undefined && typeof call['reason'] !== 'string')
    return 'has a "reason" that is not text';
  return undefined;
}

/** Checks a gate answered every call it was given exactly once, and nothing else. */
export function checkGateResult(
  result: unknown,
  calls: readonly ToolCall[],
): {
  readonly executed: readonly AppliedAction[];
  readonly failed: readonly FailedCall[];
  readonly deferred: readonly DeferredCall[];
} {
  const fail = (problem: string): never => {
    throw new ConflictError('gate_failed', `The tool gate broke its contract: ${problem}`, {
      details: { problem, callIds: calls.map((call) => call.id) },
    });
  };
  if (!isRecord(result)) return fail('it did not return an object');
  const executed = listOf(result['executed'], 'executed', fail);
  const feedback = result['feedback'];
  if (feedback !== undefined && !isRecord(feedback)) return fail('"feedback" is not an object');
  const failed = listOf(feedback?.['failed_calls'] ?? [], 'feedback.failed_calls', fail);
  const deferred = listOf(result['deferred'] ?? [], 'deferred', fail);

  const pending = new Map(calls.map((call) => [call.id, call]));
  const answer = (entry: Record<string, unknown>, where: string): ToolCall => {
    const call = typeof entry['id'] === 'string' ? pending.get(entry['id']) : undefined;
    if (call === undefined)
      return fail(`${where} answers "${String(entry['id'])}", not one open call it was given`);
    pending.delete(call.id);
    return call;
  };
  const outExecuted = executed.map((entry): AppliedAction => {
    const call = answer(entry, 'executed');
    return {
      id: call.id,
      tool: call.tool,
      args: isRecord(entry['args']) ? entry['args'] : call.args,
      ...('result' in entry ? { result: entry['result'] } : {}),
    };
  });
  const outFailed = failed.map((entry): FailedCall => {
    const call = answer(entry, 'failed_calls');
    const status = entry['status'];
    if (!TOOL_FAILURE_STATUSES.includes(status as FailedCall['status'])) {
      return fail(`failed_calls entry "${call.id}" has status ${String(status)}`);
    }
    if (typeof entry['reason'] !== 'string' || entry['reason'] === '') {
      return fail(`failed_calls entry "${call.id}" has no reason`);
    }
    const until = entry['disabled_until'];
    const issues = issuesOf(entry['issues']);
    return {
      id: call.id,
      tool: call.tool,
      status: status as FailedCall['status'], // checked against the list above
      reason: entry['reason'],
      ...(typeof until === 'string' ? { disabled_until: until } : {}),
      ...(typeof entry['code'] === 'string' ? { code: entry['code'] } : {}),
      ...(typeof entry['tool_reason'] === 'string' ? { tool_reason: entry['tool_reason'] } : {}),
      ...(issues === undefined ? {} : { issues }),
    };
  });
  const outDeferred = deferred.map((entry): DeferredCall => {
    const call = answer(entry, 'deferred');
    return {
      id: call.id,
      tool: call.tool,
      ...(typeof entry['reason'] === 'string' ? { reason: entry['reason'] } : {}),
    };
  });
  if (pending.size > 0) fail(`it did not answer ${[...pending.keys()].map((id) => `"${id}"`).join(', ')}`);
  return { executed: outExecuted, failed: outFailed, deferred: outDeferred };
}

/** The feedback in the reference document's shape: what the model and the report see. */
export function toDocumentFeedback(feedback: ToolFeedback): ToolFeedback {
  return {
    failed_calls: feedback.failed_calls.map((call) => ({
      id: call.id,
      tool: call.tool,
      status: call.status,
      reason: call.reason,
      ...(call.disabled_until === undefined ? {} : { disabled_until: call.disabled_until }),
    })),
  };
}

/** A gate's argument issues as plain data; anything not shaped like issues is left out. */
function issuesOf(value: unknown): FailedCallIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues: FailedCallIssue[] = [];
  for (const issue of value) {
    if (!isRecord(issue) || typeof issue['message'] !== 'string') return undefined;
    const path = issue['path'];
    const pathText = issue['pathText'];
    issues.push({
      ...(Array.isArray(path) && path.every((p) => typeof p === 'string' || typeof p === 'number')
        ? { path: [...(path as (string | number)[])] }
        : {}),
      ...(typeof pathText === 'string' ? { pathText } : {}),
      message: issue['message'],
    });
  }
  return issues;
}

function listOf(
  value: unknown,
  where: string,
  fail: (problem: string) => never,
): readonly Record<string, unknown>[] {
  if (!Array.isArray(value)) return fail(`"${where}" is not a list`);
  for (const entry of value) if (!isRecord(entry)) fail(`"${where}" holds a value that is not an object`);
  return value as Record<string, unknown>[]; // every entry checked above
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
