import { type ConfirmGate, digestAction } from '@parley/confirm';
import { appendConsent, type Clock, type ConsentLedger, type JsonValue } from '@parley/core';
import type { EffectLinks } from './effect-links.js';
import { AiSdkBridgeError } from './errors.js';

/** @internal An action as the bridge authorizes and runs it: the tool and its validated arguments. */
export interface BridgeAction {
  readonly name: string;
  readonly args: JsonValue;
}

/** @internal What {@link createEffectRecorder} returns. */
export interface EffectRecorder {
  /**
   * Authorizes an approved call through the confirm gate; with a ledger, links the call id to the
   * confirmation in the store first. `sessionKey` is the chat the decision was asked in (the gate
   * reads the decision by its id in any case).
   * @throws AiSdkBridgeError `store_failed` (the link could not be written: the decision is not
   * used), `call_id_reused`, `corrupt_record`, `record_version`: the tool gate answers
   * `confirmation_failed` and the call does not run.
   */
  authorized(
    callId: string,
    decisionId: string,
    sessionKey: string,
    action: BridgeAction,
  ): Promise<'confirmed' | 'declined'>;
  /** Appends the effect of a call whose tool ran, once, under the confirmation it is linked to; never throws. */
  recordEffect(
    callId: string,
    action: BridgeAction,
    outcome: 'succeeded' | 'unknown',
    detail?: string,
  ): Promise<void>;
}

/** Refusals of `authorize` after which nobody can use the decision for this action: the link goes. */
const NEVER_USABLE = new Set(['unknown_decision', 'not_confirmed', 'action_mismatch']);

/**
 * @internal Authorizes approved calls through the confirm gate and, when the gate has a ledger,
 * appends what each authorized call's tool did under its confirmation: `succeeded`, or `unknown`
 * when it threw. Which confirmation a call id was authorized under lives in the store (an effect
 * link, written before the decision is used), so the process that runs the tool finds it whichever
 * process authorized it, and the effect is appended once. A link that cannot be read or marked, or
 * a failed append, leaves the authorization without an effect: unknown too.
 */
export function createEffectRecorder(deps: {
  readonly confirmGate: ConfirmGate;
  readonly ledger: ConsentLedger | undefined;
  readonly links: EffectLinks;
  readonly clock: Clock;
}): EffectRecorder {
  const { confirmGate, ledger, links, clock } = deps;
  return {
    async authorized(callId, decisionId, sessionKey, action) {
      if (ledger === undefined)
        return (await confirmGate.authorize(decisionId, action)).ok ? 'confirmed' : 'declined';
      const link = {
        toolCallId: callId,
        tool: action.name,
        digest: await digestAction(action),
        sessionKey,
        confirmationId: decisionId,
        linkedAt: clock.now(),
      };
      if ((await links.link(link)) === 'reused') {
        throw new AiSdkBridgeError(
          'call_id_reused',
          `The tool call id "${callId}" is authorized under another confirmation or action whose effect is not recorded yet; this call does not run`,
          { details: { toolCallId: callId, tool: action.name } },
        );
      }
      const auth = await confirmGate.authorize(decisionId, action);
      if (auth.ok) return 'confirmed';
      if (NEVER_USABLE.has(auth.code)) await links.unlink(link);
      return 'declined';
    },
    async recordEffect(callId, action, outcome, detail) {
      if (ledger === undefined) return;
      let link: Awaited<ReturnType<EffectLinks['takeEffect']>>;
      try {
        link = await links.takeEffect(callId, { digest: await digestAction(action) }, outcome);
      } catch {
        return; // the tool ran: a link that cannot be read or marked leaves the authorization without an effect (unknown)
      }
      if (link === undefined) return; // never authorized, another action's link, or recorded already
      await appendConsent(ledger, link.sessionKey, {
        kind: 'effect',
        confirmationId: link.confirmationId,
        outcome,
        ...(detail === undefined ? {} : { detail }),
      });
    },
  };
}
