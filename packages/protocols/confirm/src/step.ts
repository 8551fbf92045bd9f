import { assertTimeoutMs, type JsonValue } from '@parley/core';
import type { AuthorizeResult, ConfirmRequest } from './decision.js';
import { hashAction } from './digest.js';
import { ConfirmError } from './errors.js';
import { checkApprovers, checkChoice, checkCount, checkRequest } from './internal/checks.js';
import { type Confirmation, type ConfirmRules, confirmationOf } from './internal/confirmation.js';
import type { ConfirmationRecord, DecisionRecord } from './internal/records.js';
import { authorizeRule } from './internal/step-decided.js';
import {
  type ApproverPolicy,
  DEFAULT_AFTER_DECISION_MS,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_CONFIRMATIONS,
} from './outcomes.js';
import type { ConfirmGateOptions } from './types.js';
import { DEFAULT_VOCABULARY } from './vocabulary.js';

export type {
  PromptShown,
  AnswerRules,
  ConfirmationAnswer,
  ConfirmationVerdict,
  DecisionDetails,
  Confirmation,
  ConfirmationEffect,
  ConfirmationEvent,
  ConfirmationTransition,
  ConfirmRules,
} from './internal/confirmation.js';
export { confirmStep } from './internal/machine.js';
export type { ConfirmationRecord } from './internal/records.js';
export type { AdmissionRules, AdmissionView, ConfirmationAdmission } from './internal/step-admit.js';

/**
 * The gate options {@link confirmRules} reads; each has the gate's default.
 *
 * @example
 * ```ts
 * import type { ConfirmRulesOptions } from '@parley/confirm';
 *
 * const options: ConfirmRulesOptions = { whenPending: 'supersede', afterDecisionMs: 0 };
 * console.log(options.whenPending); // supersede
 * ```
 */
export type ConfirmRulesOptions = Pick<
  ConfirmGateOptions,
  | 'vocabulary'
  | 'unrecognised'
  | 'maxReprompts'
  | 'standingAllowanceMs'
  | 'summaryPaging'
  | 'whenPending'
  | 'maxQueuedPerSession'
  | 'maxPending'
  | 'afterDecisionMs'
>;

/** The longest confirmation id (ids are kept in bounded memory and tokens). */
const MAX_ID_LENGTH = 128;
/** The longest summary kept; a longer one is kept cut, with a visible count of what was not kept. */
const MAX_KEPT_SUMMARY = 8_000;

/**
 * Checks the gate settings the confirm step depends on and returns them as the step's rules.
 * Use it to run {@link confirmStep} outside a gate (on a durable engine, say) with exactly the
 * rules a gate with the same options applies.
 *
 * @throws CoreError `invalid_timeout` for a bad `standingAllowanceMs` or `afterDecisionMs`;
 * ConfirmError `invalid_argument` for a bad choice or limit.
 * @example
 * ```ts
 * import { confirmRules } from '@parley/confirm';
 *
 * const rules = confirmRules({ whenPending: 'reject', maxReprompts: 1 });
 * console.log(rules.admit.whenPending, rules.maxReprompts, rules.afterDecisionMs); // reject 1 30000
 * ```
 */
export function confirmRules(options: ConfirmRulesOptions = {}): ConfirmRules {
  const standingMs =
    options.standingAllowanceMs === undefined
      ? undefined
      : assertTimeoutMs(options.standingAllowanceMs, 'standingAllowanceMs');
  const afterDecisionMs = options.afterDecisionMs ?? DEFAULT_AFTER_DECISION_MS;
  if (afterDecisionMs !== 0) assertTimeoutMs(afterDecisionMs, 'afterDecisionMs');
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_CONFIRMATIONS;
  if (!Number.isInteger(maxPending) || maxPending < 1 || maxPending > 1_000_000) {
    throw new ConfirmError('invalid_argument', 'maxPending must be an integer from 1 to 1 000 000', {
      details: { maxPending },
    });
  }
  return {
    afterDecisionMs,
    vocabulary: options.vocabulary ?? DEFAULT_VOCABULARY,
    unrecognised: checkChoice(options.unrecognised ?? 'cancel', ['cancel', 'reprompt'], 'unrecognised'),
    maxReprompts: checkCount(options.maxReprompts ?? 2, 'maxReprompts'),
    standingMs,
    paging: options.summaryPaging === true,
    admit: {
      whenPending: checkChoice(
        options.whenPending ?? 'queue',
        ['queue', 'reject', 'supersede'],
        'whenPending',
      ),
      maxQueued: checkCount(options.maxQueuedPerSession ?? 8, 'maxQueuedPerSession'),
      maxPending,
      standing: standingMs !== undefined,
    },
  };
}

/**
 * What {@link createConfirmation} takes besides the request.
 *
 * @example
 * ```ts
 * import type { NewConfirmation } from '@parley/confirm';
 *
 * const how: NewConfirmation = { id: 'cfm_1', now: Date.UTC(2026, 0, 1), timeoutMs: 120_000, approvers: 'any' };
 * console.log(how.approvers); // any
 * ```
 */
export interface NewConfirmation {
  /** Its id: 1 to 128 characters, no `.`. */
  readonly id: string;
  /** The time of the request, on the caller's clock. */
  readonly now: number;
  /** The window for an answer when the request names none. */
  readonly timeoutMs?: number;
  /** Who may answer when the request names no approvers. */
  readonly approvers?: ApproverPolicy;
  /** The replica that prompts it, written into its record. */
  readonly owner?: string;
}

/**
 * Checks a confirmation request and returns it as a new confirmation for {@link confirmStep}:
 * the action pinned by its digest, the summary kept (visibly cut past 8,000 characters), nothing
 * prompted yet. The gate makes every confirmation with it.
 *
 * @throws ConfirmError `invalid_argument` for a bad request, id or approver list; CoreError
 * `invalid_timeout` for a bad `timeoutMs`.
 * @example
 * ```ts
 * import { confirmRules, confirmStep, createConfirmation } from '@parley/confirm';
 *
 * const rules = confirmRules();
 * const request = {
 *   sessionKey: 'telegram:42',
 *   action: { name: 'sql.drop', args: { table: 'customers' } },
 *   summary: 'DROP TABLE customers',
 *   requester: 'alice',
 * };
 * let c = createConfirmation(request, { id: 'c1', now: 1_000 });
 * const prompted = confirmStep(c, { type: 'prompt' }, 1_000, rules);
 * console.log(prompted.effects.map((effect) => effect.type)); // [ 'timer', 'write_then_send' ]
 * c = confirmStep(prompted.next, { type: 'send_begun', sends: 1, seq: 1 }, 1_010, rules).next;
 * const delivered = { type: 'delivered', sends: 1, seq: 2, kind: 'first', order: undefined } as const;
 * c = confirmStep(c, delivered, 1_020, rules).next;
 * const reply = { type: 'reply', text: '确认', senderId: 'alice', arrival: 3, order: undefined, bot: false } as const;
 * const answered = confirmStep(c, reply, 1_030, rules);
 * console.log(answered.next.state, answered.effects[0]?.type); // done decided
 * ```
 */
export function createConfirmation(request: ConfirmRequest, how: NewConfirmation): Confirmation {
  checkRequest(request);
  return confirmationFrom(request, how, hashAction(request.action));
}

/**
 * @internal `createConfirmation` for a request already checked and hashed (the gate checks and
 * hashes before it waits for its restore, and hashes once).
 */
export function confirmationFrom(
  request: ConfirmRequest,
  how: NewConfirmation,
  hashed: ReturnType<typeof hashAction>,
): Confirmation {
  const timeoutMs = assertTimeoutMs(request.timeoutMs ?? how.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS);
  const { id } = how;
  if (typeof id !== 'string' || id === '' || id.includes('.') || id.length > MAX_ID_LENGTH) {
    throw new ConfirmError('invalid_argument', `Not a usable confirmation id: ${String(id)}`, {
      details: { id: String(id) },
    });
  }
  const { digest, args } = hashed;
  const steps = request.steps?.map((step) => ({ prompt: step.prompt, expect: step.expect }));
  const approvers = request.approvers ?? how.approvers ?? 'requester';
  const record: ConfirmationRecord = {
    rev: 0,
    id,
    sessionKey: request.sessionKey,
    action: { name: request.action.name, args: JSON.parse(args) as JsonValue, digest }, // a private copy
    summary: keep(request.summary),
    requester: request.requester,
    approvers: checkApprovers(approvers),
    steps: steps ?? null,
    step: 0,
    reprompts: 0,
    timeoutMs,
    requestedAt: how.now,
    firstPromptedAt: 0,
    promptedAt: 0,
    expiresAt: 0, // set when it is prompted
    ...(how.owner === undefined ? {} : { owner: how.owner }),
  };
  return confirmationOf(record, {
    restored: false,
    remote: false,
    resumable: false,
    state: 'new',
    deliveredSeq: null,
  });
}

function keep(summary: string): string {
  if (summary.length <= MAX_KEPT_SUMMARY) return summary;
  return `${summary.slice(0, MAX_KEPT_SUMMARY)}… (${summary.length - MAX_KEPT_SUMMARY} more characters not kept)`;
}

/**
 * A recorded decision as {@link authorizeStep} reads and writes it: the decision, and when it
 * was used (absent: not used yet). Plain JSON.
 *
 * @example
 * ```ts
 * import type { UsableDecision } from '@parley/confirm';
 *
 * const used = (decision: UsableDecision): boolean => decision.usedAt !== undefined;
 * console.log(typeof used); // function
 * ```
 */
export type UsableDecision = DecisionRecord;

/**
 * Applies the gate's `authorize` rule to a recorded decision, purely: it lets exactly its action
 * (`digest`, from {@link digestAction}) run once, when it is `confirmed`, decided in time and not
 * used yet. Returns the refusal, or the decision marked used at `now`, for the host to store in
 * place of the one it read (the gate does so with a compare-and-set, so a second use loses).
 *
 * @example
 * ```ts
 * import { authorizeStep, type ConfirmDecision, digestAction } from '@parley/confirm';
 *
 * const action = { name: 'deploy', args: { env: 'prod' } };
 * const decision: ConfirmDecision = {
 *   id: 'c1', sessionKey: 'chat:1', summary: 'Deploy', requester: 'alice', outcome: 'confirmed', reason: 'reply',
 *   action: { ...action, digest: await digestAction(action) }, requestedAt: 0, decidedAt: 10,
 * };
 * const first = authorizeStep(decision, await digestAction(action), 20);
 * console.log(first.ok, first.ok && first.record.usedAt); // true 20
 * const second = first.ok ? authorizeStep(first.record, decision.action.digest, 30) : first;
 * console.log(second.ok || second.code); // already_used
 * ```
 */
export function authorizeStep(
  decision: UsableDecision | undefined,
  digest: string,
  now: number,
): Extract<AuthorizeResult, { ok: false }> | { readonly ok: true; readonly record: UsableDecision } {
  return authorizeRule(decision, digest, now);
}
