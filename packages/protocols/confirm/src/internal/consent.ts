import {
  appendConsentFacts,
  type ConsentFact,
  createRecentMap,
  type ConsentLedger,
  type Emitter,
} from '@parley/core';
import { consentFactsOf, promptedFact } from '../consent.js';
import type { AuthorizeResult, ConfirmDecision } from '../decision.js';
import { ConfirmError } from '../errors.js';
import type { ConfirmEvents } from '../events.js';

// The gate's `ledger` option: every fact of a confirmation is appended, in the order the gate saw
// it, and an authorization passes only once the decision and the authorization itself are recorded.

/** Confirmations a delivered prompt of which could not be appended, remembered for `authorize`. */
const MAX_UNRECORDED = 10_000;

/** What the gate asks of its consent recorder. */
export interface ConsentRecorder {
  /** Appends a request's fact before it is prompted; false when it could not be recorded and must not be. */
  request(sessionKey: string, fact: ConsentFact): Promise<boolean>;
  /**
   * Runs `use` (the single use of the decision) only once the stored decision's facts (`read`;
   * never a decision object a caller made up) are recorded, then records the authorization; an ok
   * result stands only when both were recorded.
   */
  authorize(
    read: () => Promise<ConfirmDecision | undefined>,
    use: () => Promise<AuthorizeResult>,
  ): Promise<AuthorizeResult>;
  stop(): void;
}

/**
 * Appends a gate's facts to `ledger` as its events report them. With `required` (the default) an
 * authorization is refused `not_recorded` unless its prompts, its decision and the authorization
 * itself are recorded;
 * without it, a failed append is only reported (`error`).
 */
export function createConsentRecorder(
  ledger: ConsentLedger,
  events: Emitter<ConfirmEvents>,
  required: boolean,
): ConsentRecorder {
  const attempts = new Map<string, number>(); // `${id}:${step}` → prompts delivered; dropped at the decision
  const unrecorded = createRecentMap<string, true>({ maxEntries: MAX_UNRECORDED });
  let tail: Promise<unknown> = Promise.resolve();
  /** Appends in the order asked (a prompt before its answer), reporting a refusal as `error`. */
  const append = (sessionKey: string, facts: readonly ConsentFact[], id: string): Promise<boolean> => {
    const done = tail.then(async () => {
      const result = await appendConsentFacts(ledger, sessionKey, facts);
      if (result.ok) return true;
      const { kind } = result.fact;
      const error = new ConfirmError('not_recorded', `the ${kind} fact was not recorded: ${result.message}`, {
        details: { id, kind, code: result.code },
      });
      events.emit('error', { error, id });
      return false;
    });
    tail = done;
    return done;
  };
  const offPrompted = events.on('prompted', (prompted) => {
    const key = `${prompted.id}:${prompted.step}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    void append(prompted.sessionKey, [promptedFact(prompted, attempt)], prompted.id).then((ok) => {
      if (!ok) unrecorded.add(prompted.id, true);
    });
  });
  const offDecided = events.on('decided', ({ decision }) => {
    for (const key of [...attempts.keys()]) if (key.startsWith(`${decision.id}:`)) attempts.delete(key);
    // a failure here is made good (or refused) by `authorize`, which appends them again
    void append(decision.sessionKey, consentFactsOf(decision), decision.id);
  });
  const refused: AuthorizeResult = { ok: false, code: 'not_recorded' };
  return {
    async request(sessionKey, fact) {
      return (await append(sessionKey, [fact], fact.kind === 'request' ? fact.ref : '')) || !required;
    },
    async authorize(read, use) {
      await tail; // a prompt or decision fact still being appended has its say
      // The stored decision's facts again (a duplicate when the `decided` event recorded them):
      // consent is on record before the decision is used, so a failed append leaves it usable.
      const decision = required ? await read() : undefined;
      if (decision !== undefined) {
        if (unrecorded.has(decision.id)) return refused;
        if (!(await append(decision.sessionKey, consentFactsOf(decision), decision.id))) return refused;
      }
      const used = await use();
      if (!used.ok) return used;
      const { id, sessionKey } = used.decision;
      if (required && unrecorded.has(id)) return refused; // a prompt of it was never recorded
      const facts = decision === undefined ? consentFactsOf(used.decision) : [];
      const fact: ConsentFact = {
        kind: 'authorization',
        confirmationId: id,
        actionDigest: used.decision.action.digest,
      };
      const recorded = await append(sessionKey, [...facts, fact], id);
      return recorded || !required ? used : refused;
    },
    stop() {
      offPrompted();
      offDecided();
    },
  };
}
