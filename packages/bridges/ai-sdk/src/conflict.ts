import { type GenerateFn, type Proposal, toFeedbackText } from '@parley/conflict';
import type { ModelMessage } from 'ai';

/**
 * The part of a `generateText` result the conflict loop reads: the text and the proposed calls.
 *
 * @example
 * ```ts
 * import type { GeneratedTurn } from '@parley/ai-sdk';
 *
 * const turn: GeneratedTurn = { text: 'The door opens.', toolCalls: [] };
 * ```
 */
export interface GeneratedTurn {
  readonly text: string;
  readonly toolCalls: readonly {
    readonly toolCallId: string;
    readonly toolName: string;
    readonly input: unknown;
  }[];
}

/**
 * Turns a `generateText` result into the conflict loop's proposal: the text, and each tool call as
 * `{ id, tool, args }`.
 *
 * @example
 * ```ts
 * import { toProposal } from '@parley/ai-sdk';
 *
 * const proposal = toProposal({ text: 'Moving.', toolCalls: [{ toolCallId: 'c1', toolName: 'move', input: { to: 'hall' } }] });
 * console.log(proposal.tool_calls); // [ { id: 'c1', tool: 'move', args: { to: 'hall' } } ]
 * ```
 */
export function toProposal(result: GeneratedTurn): Proposal {
  return {
    text: result.text,
    tool_calls: result.toolCalls.map((call) => ({
      id: call.toolCallId,
      tool: call.toolName,
      args: call.input as Readonly<Record<string, unknown>>, // the loop refuses a call whose args are not an object
    })),
  };
}

/**
 * Wraps a `generateText` call as the conflict loop's generator: each attempt gets the original
 * messages plus, on a retry, one user message with the feedback (`conflict_debug`, `tool_feedback`)
 * of the rejected attempts, and its result becomes the attempt's proposal.
 *
 * Use it with `createConflictLoop` from `@parley/conflict` and the bridge's `definitions()` (tools
 * without `execute`), so that only the loop's gate runs calls.
 *
 * @example
 * ```ts
 * import { toConflictGenerate } from '@parley/ai-sdk';
 *
 * const generate = toConflictGenerate(async ({ messages }) => ({ text: `${messages.length} messages`, toolCalls: [] }));
 * const proposal = await generate({ input: [{ role: 'user', content: 'hi' }], feedback: [] }, { attempt: 1, signal: undefined });
 * console.log(proposal.text); // 1 messages
 * ```
 */
export function toConflictGenerate(
  call: (request: {
    readonly messages: ModelMessage[];
    readonly abortSignal: AbortSignal | undefined;
    readonly attempt: number;
  }) => Promise<GeneratedTurn>,
): GenerateFn<readonly ModelMessage[], Proposal> {
  return async (request, context) => {
    const messages: ModelMessage[] = [...request.input];
    if (request.feedback.length > 0)
      messages.push({ role: 'user', content: toFeedbackText(request.feedback) });
    return toProposal(await call({ messages, abortSignal: context.signal, attempt: context.attempt }));
  };
}
