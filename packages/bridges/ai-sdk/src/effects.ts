import type { ConfirmGate } from '@parley/confirm';
import { appendConsent, type ConsentLedger, createRecentMap, type JsonValue } from '@parley/core';

/** @internal What {@link createEffectRecorder} returns. */
export interface EffectRecorder {
  authorized(
    callId: string,
    decision: Parameters<ConfirmGate['authorize']>[0],
    action: { readonly name: string; readonly args: JsonValue },
  ): Promise<'confirmed' | 'declined'>;
  recordEffect(callId: string, outcome: 'succeeded' | 'unknown', detail?: string): Promise<void>;
}

/**
 * @internal How many authorized calls wait for their tool's effect at most: a call authorized and
 * never executed (its run stopped in between) is forgotten after this many newer ones, and its
 * ledger chain keeps the authorization without an effect, which reads as unknown.
 */
export const MAX_AWAITED_EFFECTS = 10_000;

/**
 * @internal Authorizes approved calls through the confirm gate and, when the gate has a ledger,
 * appends what each authorized call's tool did under its confirmation: `succeeded`, or `unknown`
 * when it threw. A failed append leaves the authorization without an effect: unknown too.
 */
export function createEffectRecorder(
  confirmGate: ConfirmGate,
  ledger: ConsentLedger | undefined,
): EffectRecorder {
  // the calls authorized through the confirm gate, by call id, until their tool ran (bounded)
  const consents = createRecentMap<string, { readonly sessionKey: string; readonly confirmationId: string }>({
    maxEntries: MAX_AWAITED_EFFECTS,
  });
  return {
    async authorized(
      callId: string,
      decision: Parameters<ConfirmGate['authorize']>[0],
      action: { readonly name: string; readonly args: JsonValue },
    ): Promise<'confirmed' | 'declined'> {
      const auth = await confirmGate.authorize(decision, action);
      if (!auth.ok) return 'declined';
      // the chain of the chat the person answered in, under the confirmation's own id
      if (ledger !== undefined) {
        consents.set(callId, { sessionKey: auth.decision.sessionKey, confirmationId: auth.decision.id });
      }
      return 'confirmed';
    },
    async recordEffect(callId: string, outcome: 'succeeded' | 'unknown', detail?: string): Promise<void> {
      const consent = consents.get(callId);
      if (consent === undefined || ledger === undefined) return;
      consents.delete(callId);
      await appendConsent(ledger, consent.sessionKey, {
        kind: 'effect',
        confirmationId: consent.confirmationId,
        outcome,
        ...(detail === undefined ? {} : { detail }),
      });
    },
  };
}
