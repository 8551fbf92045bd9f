import type {
  AUTHORIZE_REFUSAL_CODES,
  ConfirmAction,
  ConfirmDecision,
  ConfirmGate,
  ConfirmRequest,
} from '@parley/confirm';
import { consentFactsOf, digestAction, promptedFact } from '@parley/confirm';
import { generateId, type IdGenerator } from '@parley/core';
import { LedgerError, type LedgerErrorCode } from './errors.js';
import type { AppendResult } from './entry.js';
import type { Ledger } from './ledger.js';

/**
 * Options of {@link recordConfirmations}.
 *
 * @example
 * ```ts
 * import type { RecordConfirmationsOptions } from '@parley/ledger';
 *
 * const options: RecordConfirmationsOptions = { onRefused: (refusal) => console.error(refusal.message) };
 * ```
 */
export interface RecordConfirmationsOptions {
  /** Called when a fact the gate reported could not be appended (its next `run` retries and fails closed). */
  readonly onRefused?: (refusal: Extract<AppendResult, { ok: false }>) => void;
  /** Names each request before the gate gives it an id (default: core's `generateId`). */
  readonly generateId?: IdGenerator;
}

/**
 * What {@link ConfirmationRecorder.run} returns: the effect's value (and whether its outcome was
 * recorded), or why the effect did not run.
 *
 * @example
 * ```ts
 * import type { LedgerRunResult } from '@parley/ledger';
 *
 * const refused: LedgerRunResult<string> = { ok: false, code: 'not_confirmed', message: 'the gate refused: not_confirmed' };
 * ```
 */
export type LedgerRunResult<T> =
  | { readonly ok: true; readonly value: T; readonly recorded: boolean }
  | {
      readonly ok: false;
      readonly code: LedgerErrorCode | (typeof AUTHORIZE_REFUSAL_CODES)[number];
      readonly message: string;
    };

/**
 * A confirm gate whose confirmations land in a ledger (see {@link recordConfirmations}).
 *
 * @example
 * ```ts
 * import type { ConfirmationRecorder } from '@parley/ledger';
 *
 * const stopAll = (recorders: ConfirmationRecorder[]): void => {
 *   for (const r of recorders) r.stop();
 * };
 * ```
 */
export interface ConfirmationRecorder {
  /** Records the request, then asks the gate; rejects with a `LedgerError` (and never prompts) when the request cannot be recorded. */
  request(request: ConfirmRequest): Promise<ConfirmDecision>;
  /**
   * Records the answer and decision, authorizes the action once through the gate, records the
   * authorization, and only then runs `effect`; records its outcome (`failed` when it throws, and
   * the error is rethrown). Nothing runs when any record before it fails.
   */
  run<T>(
    decision: ConfirmDecision,
    action: ConfirmAction,
    effect: () => Promise<T> | T,
  ): Promise<LedgerRunResult<T>>;
  /** Stops listening to the gate. */
  stop(): void;
}

/**
 * Wires a confirm gate to a ledger with the gate's public events only (`@parley/confirm` does not
 * know the ledger): each delivered prompt (`prompted`) and each decision with its answer
 * (`decided`) is appended to the session's chain; `request` and `run` add the request, the single
 * authorization and the effect, failing closed.
 *
 * @example
 * ```ts
 * import { createLedger, recordConfirmations } from '@parley/ledger';
 * import { createConfirmGate } from '@parley/confirm';
 * import { createMessageBus } from '@parley/bus';
 * import { createMemoryStore } from '@parley/core';
 *
 * const store = createMemoryStore();
 * const gate = createConfirmGate({ bus: createMessageBus(), store });
 * const recorder = recordConfirmations(gate, createLedger({ store }));
 * async function deleteOrders(sessionKey: string, requester: string, sql: string): Promise<string> {
 *   const action = { name: 'sql.delete', args: { sql } };
 *   const decision = await recorder.request({ sessionKey, requester, action, summary: sql });
 *   const ran = await recorder.run(decision, action, async () => 'deleted');
 *   return ran.ok ? ran.value : `not run: ${ran.code}`;
 * }
 * ```
 */
export function recordConfirmations(
  gate: ConfirmGate,
  ledger: Ledger,
  options: RecordConfirmationsOptions = {},
): ConfirmationRecorder {
  const nextId = options.generateId ?? generateId;
  const attempts = new Map<string, number>(); // `${id}:${step}` → prompts delivered; dropped at the decision
  const report = (result: AppendResult): AppendResult => {
    if (!result.ok) options.onRefused?.(result);
    return result;
  };
  /** A ledger that rejects (a host's own implementation, a store that throws) is reported, never left unhandled. */
  const failed = (error: unknown): void => {
    report({
      ok: false,
      code: 'store_failed',
      message: error instanceof Error ? error.message : String(error),
    });
  };
  const recordDecision = async (
    decision: ConfirmDecision,
  ): Promise<{ ok: true } | Extract<AppendResult, { ok: false }>> => {
    for (const id of [...attempts.keys()]) if (id.startsWith(`${decision.id}:`)) attempts.delete(id);
    for (const fact of consentFactsOf(decision)) {
      const appended = report(await ledger.append(decision.sessionKey, fact));
      if (!appended.ok) return appended;
    }
    return { ok: true };
  };
  const offPrompted = gate.on('prompted', (prompted) => {
    const key = `${prompted.id}:${prompted.step}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    void ledger.append(prompted.sessionKey, promptedFact(prompted, attempt)).then(report, failed);
  });
  const offDecided = gate.on('decided', ({ decision }) => void recordDecision(decision).catch(failed));

  return {
    async request(request) {
      const recorded = await ledger.append(request.sessionKey, {
        kind: 'request',
        ref: nextId(),
        actionName: request.action.name,
        actionDigest: await digestAction(request.action),
        summary: request.summary,
        requester: request.requester,
        approvers: request.approvers ?? 'requester',
      });
      if (!recorded.ok) {
        throw new LedgerError(recorded.code, `the request was not prompted: ${recorded.message}`, {
          details: { sessionKey: request.sessionKey },
        });
      }
      return gate.request(request);
    },
    async run<T>(
      decision: ConfirmDecision,
      action: ConfirmAction,
      effect: () => Promise<T> | T,
    ): Promise<LedgerRunResult<T>> {
      const consent = await recordDecision(decision);
      if (!consent.ok) return consent;
      const auth = await gate.authorize(decision, action);
      if (!auth.ok) return { ok: false, code: auth.code, message: `the gate refused: ${auth.code}` };
      const authorization = report(
        await ledger.append(decision.sessionKey, {
          kind: 'authorization',
          confirmationId: decision.id,
          actionDigest: auth.decision.action.digest,
        }),
      );
      if (!authorization.ok) return authorization;
      let value: T;
      try {
        value = await effect();
      } catch (error) {
        await ledger
          .append(decision.sessionKey, { kind: 'effect', confirmationId: decision.id, outcome: 'failed' })
          .then(report);
        throw error;
      }
      const done = report(
        await ledger.append(decision.sessionKey, {
          kind: 'effect',
          confirmationId: decision.id,
          outcome: 'succeeded',
        }),
      );
      return { ok: true, value, recorded: done.ok };
    },
    stop() {
      offPrompted();
      offDecided();
    },
  };
}
