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
