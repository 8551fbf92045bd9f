import { appendConsentFacts, type ConsentFact, type ConsentLedger } from '@parley/core';
import { ToolsError } from '../errors.js';
import type { Runtime, Settled } from './runtime.js';

// The tool gate's `ledger` option: a confirmed call's consent is appended before its executor
// runs (the executor never runs when it could not be), and the executor's outcome after.

/** Where a confirmed call's facts go: the gate's ledger, the session, the confirmation's id. */
export interface ConsentTarget {
  readonly ledger: ConsentLedger;
  readonly sessionKey: string;
  readonly confirmationId: string;
  /** `ledgerRequired`: a fact that cannot be appended stops the call. */
  readonly required: boolean;
}

/** The call a fact is about, for the `error` event of a failed append. */
interface About {
  readonly turn: number;
  readonly id: string;
  readonly tool: string;
}

/**
 * Appends `facts` in order; a refusal or failure is reported (`error`, stage `ledger`, code
 * `not_recorded`). True when all were recorded, or when recording is not required.
 */
export async function recordConsent<TContext>(
  rt: Runtime<TContext>,
  target: ConsentTarget,
  facts: readonly ConsentFact[],
  about: About,
): Promise<boolean> {
  const result = await appendConsentFacts(target.ledger, target.sessionKey, facts);
  if (result.ok) return true;
  const error = new ToolsError(
    'not_recorded',
    `the ${result.fact.kind} fact was not recorded: ${result.message}`,
    {
      details: { confirmationId: target.confirmationId, kind: result.fact.kind, code: result.code },
    },
  );
  rt.emit('error', { ...about, stage: 'ledger', error });
  return !target.required;
}

/**
 * The `effect` fact of a call whose executor ran: `succeeded` when it executed, `failed` when the
 * tool refused with a declared reason, `unknown` when the executor threw (it may have acted).
 */
export function effectFact(confirmationId: string, settled: Settled): ConsentFact {
  const { record, failed } = settled;
  if (record.outcome === 'executed') return { kind: 'effect', confirmationId, outcome: 'succeeded' };
  if (record.code === 'tool_refused') {
    const detail = failed?.tool_reason;
    return { kind: 'effect', confirmationId, outcome: 'failed', ...(detail === undefined ? {} : { detail }) };
  }
  return { kind: 'effect', confirmationId, outcome: 'unknown', detail: record.code ?? record.outcome };
}

/**
 * Where a confirmation's facts go: `undefined` without a ledger (or when a session-less call may
 * go unrecorded), `null` when they must be recorded and cannot be (no session to record them in).
 */
export function consentTarget<TContext>(
  rt: Runtime<TContext>,
  sessionKey: string | undefined,
  confirmationId: string,
): ConsentTarget | undefined | null {
  if (rt.ledger === undefined) return undefined;
  const { to, required } = rt.ledger;
  if (sessionKey === undefined) return required ? null : undefined;
  return { ledger: to, sessionKey, confirmationId, required };
}

/** Whether the executor ran for a settled call (also when the tool then refused with a reason). */
export function executorRan(settled: Settled): boolean {
  return settled.ran || settled.record.code === 'tool_refused';
}
