// What the bridge reads off an interruption, and what the model is told of a rejected call.
import type { RunToolApprovalItem } from '@openai/agents';
import type { AUTHORIZE_REFUSAL_CODES } from '@parley/confirm';
import type { JsonValue } from '@parley/core';

/** A refusal code of the confirm gate's `authorize`. */
export type AuthorizeRefusalCode = (typeof AUTHORIZE_REFUSAL_CODES)[number];

export function callIdOf(item: RunToolApprovalItem): string {
  return (item.rawItem as { callId: string }).callId; // function tool calls carry their call id
}

export function argsOf(item: RunToolApprovalItem): JsonValue {
  const text = item.arguments as string; // function tool calls carry their arguments as JSON text
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

export const NOT_CONFIRMED =
  'Not run: the person did not confirm this call in time (declined, timed out or never asked).';

/** What the model is told when the prompt could not be sent: the person was never asked. */
export const PROMPT_FAILED =
  'Not run: confirmation_failed, the confirmation could not be shown to the person (the prompt could not be sent).';

/** What the model is told when a call is rejected, by the confirm gate's `authorize` refusal code. */
export const REJECTIONS: Readonly<Record<AuthorizeRefusalCode, string>> = {
  unknown_decision: NOT_CONFIRMED,
  not_confirmed: NOT_CONFIRMED,
  action_mismatch: 'Not run: the approved arguments differ from these.',
  already_used: 'Not run: this approval was used already.',
  not_recorded: 'Not run: the approval could not be recorded in the consent ledger.',
};
