import type { RetryFeedback } from './records.js';

const ALREADY_APPLIED_NOTE =
  'These calls already took effect and stay applied. Do not request them again: an equal call is recognised as the one that ran and is not run twice. Narrate what follows from them.';

/**
 * Writes retry feedback as text to append to a chat request: one block per rejected attempt with
 * its `conflict_debug`, `tool_feedback`, `already_applied` (with a note that those calls stay
 * applied and must not be requested again) and review issues as JSON, in the document's field names.
 *
 * Use it inside a generator whose model takes messages, e.g. as the content of a message added
 * after the previous request's messages. `rejected_output` is left out unless asked for.
 *
 * @example
 * ```ts
 * import { toFeedbackText } from '@parley/conflict';
 *
 * const text = toFeedbackText([
 *   {
 *     attempt: 1,
 *     conflict_debug: [],
 *     tool_feedback: { failed_calls: [{ id: 'call_1', tool: 'move', status: 'rejected', reason: 'area locked' }] },
 *   },
 * ]);
 * console.log(text.includes('"failed_calls"')); // true
 * ```
 */
export function toFeedbackText(
  feedback: readonly RetryFeedback[],
  options: { readonly includeOutput?: boolean } = {},
): string {
  return feedback
    .map((entry) => {
      const body: Record<string, unknown> = {};
      if (entry.conflict_debug.length > 0) {
        body['conflict_debug'] = entry.conflict_debug.map((conflict) => ({
          expected_state_snippet: conflict.expected_state_snippet,
          mismatch_reason: conflict.mismatch_reason,
          instructions: conflict.instructions,
        }));
      }
      if (entry.tool_feedback !== undefined) body['tool_feedback'] = entry.tool_feedback;
      if (entry.already_applied !== undefined && entry.already_applied.length > 0) {
        body['already_applied'] = entry.already_applied;
        body['already_applied_note'] = ALREADY_APPLIED_NOTE;
      }
      if (entry.review !== undefined) {
        body['review'] = { issues: entry.review.issues ?? [], revise_target: entry.review.revise_target };
      }
      if (options.includeOutput === true && entry.rejected_output !== undefined) {
        body['rejected_output'] = entry.rejected_output;
      }
      return `Attempt ${entry.attempt} was rejected. Correct it as follows:\n${JSON.stringify(body, null, 2)}`;
    })
    .join('\n\n');
}

/**
 * One chat message of {@link toFeedbackMessages}.
 *
 * @example
 * ```ts
 * import type { FeedbackMessage } from '@parley/conflict';
 *
 * const message: FeedbackMessage = { role: 'system', content: 'Attempt 1 was rejected. …' };
 * ```
 */
export interface FeedbackMessage {
  readonly role: 'assistant' | 'system';
  readonly content: string;
}

/**
 * Retry feedback as chat messages to append after the previous request's messages (the seed's
 * "append to the previous request"): for each rejected attempt, the draft as the model sent it (an
 * `assistant` message with its `text` and `tool_calls` as JSON) and what was wrong with it (a
 * `system` message, as {@link toFeedbackText} writes it).
 *
 * Use it in a generator whose model takes chat messages: send `[...request, ...toFeedbackMessages(feedback)]`.
 *
 * @example
 * ```ts
 * import { toFeedbackMessages } from '@parley/conflict';
 *
 * const messages = toFeedbackMessages([
 *   { attempt: 1, conflict_debug: [], rejected_output: { text: 'You take 4 damage.' } },
 * ]);
 * console.log(messages.map((m) => m.role), messages[0]?.content);
 * // [ 'assistant', 'system' ] {"text":"You take 4 damage.","tool_calls":[]}
 * ```
 */
export function toFeedbackMessages(feedback: readonly RetryFeedback[]): FeedbackMessage[] {
  return feedback.flatMap((entry): FeedbackMessage[] => [
    { role: 'assistant', content: JSON.stringify(draftOf(entry.rejected_output)) ?? 'null' },
    { role: 'system', content: toFeedbackText([entry]) },
  ]);
}

/** The draft echoed back: a proposal's text and calls, or whatever a faulty model returned. */
function draftOf(output: unknown): unknown {
  if (typeof output !== 'object' || output === null) return output;
  const draft = output as { readonly text?: unknown; readonly tool_calls?: unknown };
  return { text: draft.text, tool_calls: draft.tool_calls ?? [] };
}
