import type { RunToolApprovalItem } from '@openai/agents';
import { appendConsent, type ConsentLedger } from '@parley/core';
import { callIdOf } from './items.js';

/** @internal A call the confirm gate authorized: the chat's chain and the confirmation it ran under. */
export interface Consent {
  readonly callId: string;
  readonly confirmationId: string;
  readonly sessionKey: string;
}

/**
 * @internal Appends what each authorized call came to: `succeeded` when the resumed run holds the
 * tool's output for its call id, `unknown` when the run threw or ended without it (whether the tool
 * acted is not known). A failed append leaves the authorization without an effect: unknown too.
 */
export async function recordEffects(
  ledger: ConsentLedger,
  consents: readonly Consent[],
  items: readonly { readonly type: string; readonly rawItem?: unknown }[] | undefined,
  error?: unknown,
): Promise<void> {
  for (const consent of consents) {
    const output = items?.find(
      (item) =>
        item.type === 'tool_call_output_item' &&
        (item.rawItem as { callId?: unknown } | undefined)?.callId === consent.callId,
    );
    const detail =
      error === undefined
        ? 'the run ended without the tool’s output'
        : `the run failed: ${error instanceof Error ? error.message : String(error)}`;
    await appendConsent(ledger, consent.sessionKey, {
      kind: 'effect',
      confirmationId: consent.confirmationId,
      ...(output === undefined ? { outcome: 'unknown', detail } : { outcome: 'succeeded' }),
    });
  }
}

/** @internal Approves `item` in the resumed state; its consent is the confirmation it runs under. */
export function approve(
  state: { approve(item: RunToolApprovalItem): void },
  item: RunToolApprovalItem,
  decision: { readonly id: string; readonly sessionKey: string },
): Consent {
  state.approve(item);
  return { callId: callIdOf(item), confirmationId: decision.id, sessionKey: decision.sessionKey };
}

/** @internal Runs the resumed run, then appends each authorized call's effect to `ledger` (if any). */
export async function runRecorded<T extends { readonly newItems: readonly { readonly type: string }[] }>(
  ledger: ConsentLedger | undefined,
  consents: readonly Consent[],
  run: () => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    if (ledger !== undefined) await recordEffects(ledger, consents, undefined, error);
    throw error;
  }
  if (ledger !== undefined) await recordEffects(ledger, consents, result.newItems);
  return result;
}
