import type { JsonValue } from './json.js';

// The seam between the packages that ask for consent (confirm, tools, pipeline) and a consent
// ledger (`@parley/ledger`): the facts they report and the one method they call. The asking
// packages depend on this shape only, never on the ledger package.

/**
 * A value replaced by its salted SHA-256 digest: a ledger commits to the digest, so its chain stays
 * verifiable, and whoever holds the value and the salt can show it matches.
 *
 * @example
 * ```ts
 * import type { RedactedValue } from '@parley/core';
 *
 * const summary: RedactedValue = { redacted: 'sha256:9f2c…' };
 * ```
 */
export interface RedactedValue {
  readonly redacted: string;
}

/**
 * One fact of a consent, by kind, as the confirm gate, the tool gate and pipeline approval nodes
 * report it to a {@link ConsentLedger}.
 *
 * - `request`: the action's digest, the summary shown, the approver policy; `ref` names the request
 *   (the confirmation id when the asker has one).
 * - `prompt_delivered`: a prompt (or step, or re-prompt: `attempt`) whose send resolved, with the
 *   digests of the exact text and card and the platform's message id and stamp when known.
 * - `answer`: the reply or click that decided, its author as the platform reports it, its text.
 * - `decision`: the outcome and reason code as the asker recorded them.
 * - `authorization`: the single authorization of a confirmed decision.
 * - `effect`: the outcome as the host reports it, or `unknown` (the executor threw or crashed).
 *
 * @example
 * ```ts
 * import type { ConsentFact } from '@parley/core';
 *
 * const fact: ConsentFact = { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded' };
 * ```
 */
export type ConsentFact =
  | {
      readonly kind: 'request';
      readonly ref: string;
      readonly actionName: string;
      readonly actionDigest: string;
      readonly summary: string | RedactedValue;
      readonly requester: string;
      readonly approvers: 'requester' | 'any' | readonly string[];
    }
  | {
      readonly kind: 'prompt_delivered';
      readonly confirmationId: string;
      readonly step: number;
      readonly attempt: number;
      readonly textDigest?: string;
      readonly cardDigest?: string;
      readonly messageId?: string;
      readonly platformStamp?: JsonValue;
    }
  | {
      readonly kind: 'answer';
      readonly confirmationId: string;
      readonly authorId: string;
      readonly via: 'reply' | 'card' | 'standing_allowance';
      readonly text?: string | RedactedValue;
      readonly eventId?: string;
    }
  | {
      readonly kind: 'decision';
      readonly confirmationId: string;
      readonly actionDigest: string;
      readonly outcome: string;
      readonly reason: string;
      readonly decidedBy?: string;
    }
  | { readonly kind: 'authorization'; readonly confirmationId: string; readonly actionDigest: string }
  | {
      readonly kind: 'effect';
      readonly confirmationId: string;
      readonly outcome: 'succeeded' | 'failed' | 'unknown';
      readonly detail?: string;
    };

/**
 * What {@link ConsentLedger.append} answers: recorded (also when the same fact was recorded
 * before), or refused with nothing written.
 *
 * @example
 * ```ts
 * import type { ConsentAppendResult } from '@parley/core';
 *
 * const refused: ConsentAppendResult = { ok: false, code: 'no_consent', message: 'no authorization for c1' };
 * ```
 */
export type ConsentAppendResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * Where the gates append what they asked, what was shown, answered and decided, what they
 * authorized and what ran: `@parley/ledger`'s `Ledger` is one. Appending the same fact twice must
 * be harmless (a duplicate), as the gates re-append a fact rather than lose it.
 *
 * @example
 * ```ts
 * import type { ConsentFact, ConsentLedger } from '@parley/core';
 *
 * const facts: ConsentFact[] = [];
 * const inMemory: ConsentLedger = {
 *   async append(_sessionKey, fact) {
 *     facts.push(fact);
 *     return { ok: true };
 *   },
 * };
 * ```
 */
export interface ConsentLedger {
  /** Appends one fact to the session's record; a fact recorded before answers ok (a duplicate). */
  append(sessionKey: string, fact: ConsentFact): Promise<ConsentAppendResult>;
}

/**
 * Appends a fact to a consent ledger and answers a refusal instead of rejecting: a ledger that
 * throws or rejects (a host's own implementation, a store that failed) reads as `store_failed`.
 * Use it wherever an effect must not run unless its consent was recorded.
 *
 * @example
 * ```ts
 * import { appendConsent, type ConsentLedger } from '@parley/core';
 *
 * const broken: ConsentLedger = { append: async () => { throw new Error('disk full'); } };
 * const result = await appendConsent(broken, 'chat-1', { kind: 'effect', confirmationId: 'c1', outcome: 'unknown' });
 * console.log(result.ok || result.code); // store_failed
 * ```
 */
export async function appendConsent(
  ledger: ConsentLedger,
  sessionKey: string,
  fact: ConsentFact,
): Promise<ConsentAppendResult> {
  try {
    const result = await ledger.append(sessionKey, fact);
    if (result.ok) return result;
    return { ok: false, code: result.code, message: result.message };
  } catch (error) {
    return {
      ok: false,
      code: 'store_failed',
      message: `the consent ledger failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/**
 * Appends facts to a consent ledger in order and stops at the first that is not recorded, which
 * the refusal names (`fact`); nothing after it is appended. Use it for the facts one step of a gate
 * must have on record before it goes on (a decision and its authorization).
 *
 * @example
 * ```ts
 * import { appendConsentFacts, type ConsentFact, type ConsentLedger } from '@parley/core';
 *
 * const seen: ConsentFact['kind'][] = [];
 * const full: ConsentLedger = {
 *   append: async (_session, fact) => {
 *     seen.push(fact.kind);
 *     return fact.kind === 'authorization' ? { ok: false, code: 'too_large', message: 'the chain is full' } : { ok: true };
 *   },
 * };
 * const result = await appendConsentFacts(full, 'chat-1', [
 *   { kind: 'authorization', confirmationId: 'c1', actionDigest: 'sha256:ab' },
 *   { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded' },
 * ]);
 * console.log(result.ok || result.fact.kind, seen); // authorization [ 'authorization' ]
 * ```
 */
export async function appendConsentFacts(
  ledger: ConsentLedger,
  sessionKey: string,
  facts: readonly ConsentFact[],
): Promise<
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly fact: ConsentFact }
> {
  for (const fact of facts) {
    const result = await appendConsent(ledger, sessionKey, fact);
    if (!result.ok) return { ...result, fact };
  }
  return { ok: true };
}

/**
 * Whether a value can serve as a {@link ConsentLedger} (it has an `append` function); the gates
 * check their `ledger` option with it.
 *
 * @example
 * ```ts
 * import { isConsentLedger } from '@parley/core';
 *
 * console.log(isConsentLedger({ append: async () => ({ ok: true }) }), isConsentLedger({})); // true false
 * ```
 */
export function isConsentLedger(value: unknown): value is ConsentLedger {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { append?: unknown }).append === 'function'
  );
}
