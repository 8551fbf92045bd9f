import type { ConfirmDecision, ConfirmGate, ResumeHandler } from '@parley/confirm';
import { type Clock, type JsonValue, type StandardSchemaV1, validateAsync } from '@parley/core';
import type { ModelMessage, ToolApprovalResponse } from 'ai';
import { AiSdkBridgeError } from './errors.js';
import type { ApprovalRecord, ApprovalRecords } from './records.js';
import type { ApprovalAnswer, ApprovalSource, ApproveOptions, ResumedApproval } from './types.js';

interface ApprovalRequestPart {
  readonly approvalId: string;
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
}

/** An {@link ApprovalSource} whose promises have settled. */
interface Resolved {
  readonly content: readonly unknown[];
  readonly response: { readonly messages: readonly ModelMessage[] };
}

interface ApproverDeps {
  readonly records: ApprovalRecords;
  readonly clock: Clock;
  readonly confirmGate: ConfirmGate;
  schemaOf(name: string): StandardSchemaV1;
  summarize(name: string, args: unknown): string;
}

/** @internal Makes the bridge's `approve`. */
export function createApprover(
  deps: ApproverDeps,
): (result: ApprovalSource, options: ApproveOptions) => Promise<ApprovalAnswer> {
  return async (source, options) => {
    // A streamText result holds promises that settle once its stream has finished.
    const result = { content: await source?.content, response: await source?.response };
    if (!Array.isArray(result.content) || !Array.isArray(result.response?.messages)) {
      throw new AiSdkBridgeError(
        'invalid_result',
        'approve takes a generateText or streamText result (content and response.messages)',
      );
    }
    const requests = result.content.filter(isApprovalRequest);
    const outcomes = await Promise.all(requests.map((request) => ask(deps, request, result, options)));
    const decisions = outcomes.flatMap((outcome) =>
      outcome.decision === undefined ? [] : [outcome.decision],
    );
    return {
      messages: [...result.response.messages, toolMessage(outcomes.map((outcome) => outcome.response))],
      decisions,
      approved: outcomes.every((outcome) => outcome.response.approved),
      resumedElsewhere: outcomes
        .filter((outcome) => outcome.elsewhere)
        .map((outcome) => outcome.response.approvalId),
    };
  };
}

async function ask(
  deps: ApproverDeps,
  request: ApprovalRequestPart,
  result: Resolved,
  options: ApproveOptions,
): Promise<{ response: ToolApprovalResponse; decision?: ConfirmDecision; elsewhere: boolean }> {
  const { approvalId, toolCall } = request;
  const checked = await validateAsync(deps.schemaOf(toolCall.toolName), toolCall.input);
  if (!checked.ok) {
    const reason = `The arguments of ${toolCall.toolName} are invalid; nobody was asked and the tool did not run.`;
    return {
      response: { type: 'tool-approval-response', approvalId, approved: false, reason },
      elsewhere: false,
    };
  }
  const args = checked.value as JsonValue; // the validated arguments of a JSON tool call
  const record: ApprovalRecord = {
    approvalId,
    toolCallId: toolCall.toolCallId,
    tool: toolCall.toolName,
    args,
    sessionKey: options.sessionKey,
    requester: options.requester,
    messages: result.response.messages as unknown as JsonValue, // model messages are JSON
    state: options.state ?? null,
    createdAt: deps.clock.now(),
  };
  await deps.records.write(record);
  const decision = await deps.confirmGate.request({
    sessionKey: options.sessionKey,
    requester: options.requester,
    action: { name: toolCall.toolName, args },
    summary: deps.summarize(toolCall.toolName, args),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  // A gate closed while waiting leaves the approval in the store for the next process: not ours.
  if (decision.reason === 'closed')
    return { response: responseOf(approvalId, decision), decision, elsewhere: true };
  const won = await deps.records.claim(toolCall.toolCallId, decision.id);
  return { response: responseOf(approvalId, decision), decision, elsewhere: !won };
}

/** @internal The confirm gate's resume handler: continues the conversation of a restored approval, once. */
export function resumeHandler(deps: {
  readonly records: ApprovalRecords;
  readonly onResume: (resumed: ResumedApproval) => void | Promise<void>;
}): ResumeHandler {
  return async (decision) => {
    const record = await deps.records.findUnclaimed({
      sessionKey: decision.sessionKey,
      tool: decision.action.name,
      args: decision.action.args,
    });
    if (record === undefined) return;
    if (!(await deps.records.claim(record.toolCallId, decision.id))) return;
    await deps.onResume({
      messages: [
        ...(record.messages as unknown as ModelMessage[]), // stored from response.messages
        toolMessage([responseOf(record.approvalId, decision)]),
      ],
      decision,
      sessionKey: record.sessionKey,
      requester: record.requester,
      state: record.state,
    });
  };
}

function responseOf(approvalId: string, decision: ConfirmDecision): ToolApprovalResponse {
  if (decision.outcome === 'confirmed') return { type: 'tool-approval-response', approvalId, approved: true };
  return { type: 'tool-approval-response', approvalId, approved: false, reason: reasonOf(decision) };
}

function reasonOf(decision: ConfirmDecision): string {
  if (decision.outcome === 'timed_out') return 'Nobody confirmed in time (timed_out); the tool did not run.';
  if (decision.outcome === 'cancelled') return 'The person declined (cancelled); the tool did not run.';
  if (decision.outcome === 'aborted' && decision.reason === 'prompt_failed')
    return 'The confirmation could not be shown to the person (confirmation_failed: the prompt could not be sent); the tool did not run.';
  return `Not confirmed (${decision.outcome}: ${decision.reason}); the tool did not run.`;
}

function toolMessage(content: ToolApprovalResponse[]): ModelMessage {
  return { role: 'tool', content };
}

function isApprovalRequest(part: unknown): part is ApprovalRequestPart {
  if (typeof part !== 'object' || part === null) return false;
  const value = part as {
    type?: unknown;
    approvalId?: unknown;
    toolCall?: { toolCallId?: unknown; toolName?: unknown };
  };
  return (
    value.type === 'tool-approval-request' &&
    typeof value.approvalId === 'string' &&
    typeof value.toolCall?.toolCallId === 'string' &&
    typeof value.toolCall.toolName === 'string'
  );
}
