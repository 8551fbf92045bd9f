import { canonicalJson, type ConsentFact, type JsonValue } from '@parley/core';
import type { ConfirmDecision } from './decision.js';
import type { ConfirmEvents } from './events.js';
import { sha256Hex } from './internal/sha256.js';

// What a confirmation reports to a consent ledger (`ConfirmGateOptions.ledger`, `@parley/ledger`'s
// `recordConfirmations`, the tool gate): its facts, built once here so every recorder writes the
// same content and a re-appended fact is a duplicate, never a conflict.

/**
 * The consent facts a decision holds: the answer that decided it (when a person did: reply, card
 * or standing allowance) and the decision itself, in that order.
 *
 * @example
 * ```ts
 * import { consentFactsOf, type ConfirmDecision } from '@parley/confirm';
 *
 * const decision: ConfirmDecision = {
 *   id: 'cfm_1', sessionKey: 'feishu:oc_1', summary: 'drop', requester: 'ou_a',
 *   action: { name: 'sql.delete', args: {}, digest: 'ab'.repeat(32) },
 *   outcome: 'confirmed', reason: 'reply', decidedBy: 'ou_a', reply: '确认', requestedAt: 0, decidedAt: 1,
 * };
 * console.log(consentFactsOf(decision).map((fact) => fact.kind).join(' ')); // answer decision
 * ```
 */
export function consentFactsOf(decision: ConfirmDecision): readonly ConsentFact[] {
  const facts: ConsentFact[] = [];
  if (decision.decidedBy !== undefined) {
    const via =
      decision.reason === 'card' || decision.reason === 'standing_allowance' ? decision.reason : 'reply';
    facts.push({
      kind: 'answer',
      confirmationId: decision.id,
      authorId: decision.decidedBy,
      via,
      ...(decision.reply === undefined ? {} : { text: decision.reply }),
    });
  }
  facts.push({
    kind: 'decision',
    confirmationId: decision.id,
    actionDigest: decision.action.digest,
    outcome: decision.outcome,
    reason: decision.reason,
    ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
  });
  return facts;
}

/**
 * The `prompt_delivered` fact of a `prompted` event: the SHA-256 (hex) of the exact text and of
 * the canonical card shown, the platform's message id and its place for the prompt (`order`)
 * when the adapter reported them; `attempt` counts the deliveries of that step (1 first).
 *
 * @example
 * ```ts
 * import { promptedFact } from '@parley/confirm';
 *
 * const fact = promptedFact({ id: 'cfm_1', sessionKey: 'feishu:oc_1', step: 0, reprompt: false, text: 'OK?' }, 1);
 * console.log(fact.kind, fact.kind === 'prompt_delivered' && fact.textDigest?.length); // prompt_delivered 64
 * ```
 */
export function promptedFact(prompted: ConfirmEvents['prompted'], attempt: number): ConsentFact {
  const { id, step, text, card, order, messageId } = prompted;
  return {
    kind: 'prompt_delivered',
    confirmationId: id,
    step,
    attempt,
    ...(text === undefined ? {} : { textDigest: sha256Hex(text) }),
    ...(card === undefined ? {} : { cardDigest: sha256Hex(canonicalJson(card as unknown as JsonValue)) }),
    ...(messageId === undefined ? {} : { messageId }),
    // a PlatformOrder is plain JSON (numbers and strings); the interface lacks JsonValue's index signature
    ...(order === undefined ? {} : { platformStamp: order as unknown as JsonValue }),
  };
}
