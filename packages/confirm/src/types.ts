import type { MessageBus } from '@parley/bus';
import type { Clock, Emitter, IdGenerator, JsonValue, Store } from '@parley/core';
import type { ConfirmAction } from './digest.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * How long a confirmation waits for a reply unless told otherwise: 5 minutes.
 *
 * @example
 * ```ts
 * import { DEFAULT_CONFIRM_TIMEOUT_MS } from '@parley/confirm';
 *
 * console.log(DEFAULT_CONFIRM_TIMEOUT_MS); // 300000
 * ```
 */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 300_000;

/**
 * How many confirmations a gate holds at once unless told otherwise (`maxPending`): 10 000.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_PENDING } from '@parley/confirm';
 *
 * console.log(DEFAULT_MAX_PENDING); // 10000
 * ```
 */
export const DEFAULT_MAX_PENDING = 10_000;

/**
 * How long after a decision its approvers' answers are still absorbed (`afterDecisionMs`): 30 s.
 *
 * @example
 * ```ts
 * import { DEFAULT_AFTER_DECISION_MS } from '@parley/confirm';
 *
 * console.log(DEFAULT_AFTER_DECISION_MS); // 30000
 * ```
 */
export const DEFAULT_AFTER_DECISION_MS = 30_000;

/**
 * The longest summary a prompt shows whole: 500 characters. A longer one is shortened with a
 * visible "… N more characters" marker and followed by the arguments key by key.
 *
 * @example
 * ```ts
 * import { MAX_SUMMARY_LENGTH } from '@parley/confirm';
 *
 * console.log(MAX_SUMMARY_LENGTH); // 500
 * ```
 */
export const MAX_SUMMARY_LENGTH = 500;

/**
 * The outcomes of a confirmation. Only `confirmed` authorises the action.
 *
 * @example
 * ```ts
 * import { CONFIRM_OUTCOMES } from '@parley/confirm';
 *
 * console.log(CONFIRM_OUTCOMES.length); // 6
 * ```
 */
export const CONFIRM_OUTCOMES = [
  'confirmed',
  'cancelled',
  'timed_out',
  'superseded',
  'aborted',
  'refused',
] as const;

/**
 * One of {@link CONFIRM_OUTCOMES}.
 *
 * @example
 * ```ts
 * import type { ConfirmOutcome } from '@parley/confirm';
 *
 * const outcome: ConfirmOutcome = 'timed_out';
 * ```
 */
export type ConfirmOutcome = (typeof CONFIRM_OUTCOMES)[number];

/**
 * Why a decision came out as it did; the README lists each with its outcome.
 *
 * @example
 * ```ts
 * import { DECISION_REASONS } from '@parley/confirm';
 *
 * console.log(DECISION_REASONS.includes('step_mismatch')); // true
 * ```
 */
export const DECISION_REASONS = [
  'reply',
  'card',
  'unrecognised',
  'step_mismatch',
  'standing_allowance',
  'timeout',
  'superseded',
  'signal',
  'closed',
  'prompt_failed',
  'session_busy',
  'expired',
  'too_many_pending',
] as const;

/**
 * One of {@link DECISION_REASONS}.
 *
 * @example
 * ```ts
 * import type { DecisionReason } from '@parley/confirm';
 *
 * const reason: DecisionReason = 'card';
 * ```
 */
export type DecisionReason = (typeof DECISION_REASONS)[number];

/**
 * Who may answer a confirmation: only the user who triggered the action (`requester`, the
 * default), any member of the chat (`any`), or the listed user ids.
 *
 * @example
 * ```ts
 * import type { ApproverPolicy } from '@parley/confirm';
 *
 * const admins: ApproverPolicy = ['ou_admin_1', 'ou_admin_2'];
 * ```
 */
export type ApproverPolicy = 'requester' | 'any' | readonly string[];

/**
 * One step of an exact multi-step confirmation: the prompt sent and the exact answer required
 * (compared after NFKC and trimming; case and punctuation count).
 *
 * @example
 * ```ts
 * import type { ConfirmStep } from '@parley/confirm';
 *
 * const step: ConfirmStep = { prompt: 'This may be high-impact. Confirm #1 (YES).', expect: 'YES' };
 * ```
 */
export interface ConfirmStep {
  readonly prompt: string;
  readonly expect: string;
}

/**
 * What {@link ConfirmGate.request} takes: the session to ask in, the action, a summary for
 * people, who triggered it, and optionally a timeout, a signal, exact steps and approvers.
 *
 * @example
 * ```ts
 * import type { ConfirmRequest } from '@parley/confirm';
 *
 * const request: ConfirmRequest = {
 *   sessionKey: 'feishu:oc_1',
 *   action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } },
 *   summary: 'DELETE FROM orders WHERE status = 1',
 *   requester: 'ou_alice',
 * };
 * ```
 */
export interface ConfirmRequest {
  readonly sessionKey: string;
  readonly action: ConfirmAction;
  /**
   * Shown in the prompt after the action name and a short digest. Longer than
   * {@link MAX_SUMMARY_LENGTH} characters it is shortened visibly ("… N more characters") and the
   * arguments are shown key by key in canonical order; see the README ("What a prompt shows").
   */
  readonly summary: string;
  /** The user id whose message triggered the action. */
  readonly requester: string;
  /** Milliseconds to wait once prompted; the gate's `timeoutMs` by default. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Exact answers required in order, instead of one confirm word. */
  readonly steps?: readonly ConfirmStep[];
  /** Overrides the gate's approver policy for this request. */
  readonly approvers?: ApproverPolicy;
}

/**
 * The settled result of a confirmation, also what the audit trail records. Plain JSON.
 *
 * @example
 * ```ts
 * import type { ConfirmDecision } from '@parley/confirm';
 *
 * function explain(decision: ConfirmDecision): string {
 *   return `${decision.outcome} (${decision.reason}) by ${decision.decidedBy ?? 'nobody'}`;
 * }
 * ```
 */
export interface ConfirmDecision {
  readonly id: string;
  readonly sessionKey: string;
  readonly action: { readonly name: string; readonly args: JsonValue; readonly digest: string };
  readonly summary: string;
  readonly requester: string;
  readonly outcome: ConfirmOutcome;
  readonly reason: DecisionReason;
  /** The user whose reply or click decided, or who granted the standing allowance. */
  readonly decidedBy?: string;
  /** The normalised reply that decided, when one did. */
  readonly reply?: string;
  /** For `step_mismatch`: the 1-based step that failed. */
  readonly failedStep?: number;
  /** When `always` was chosen: until when this action kind is allowed in this session. */
  readonly allowUntil?: number;
  /** The absolute deadline of the confirmation (absent when it was never prompted). */
  readonly expiresAt?: number;
  readonly requestedAt: number;
  readonly promptedAt?: number;
  readonly decidedAt: number;
}

/**
 * Why {@link ConfirmGate.authorize} refused.
 *
 * @example
 * ```ts
 * import { AUTHORIZE_REFUSAL_CODES } from '@parley/confirm';
 *
 * console.log(AUTHORIZE_REFUSAL_CODES.includes('action_mismatch')); // true
 * ```
 */
export const AUTHORIZE_REFUSAL_CODES = [
  'unknown_decision',
  'not_confirmed',
  'action_mismatch',
  'already_used',
] as const;

/**
 * The result of {@link ConfirmGate.authorize}.
 *
 * @example
 * ```ts
 * import type { AuthorizeResult } from '@parley/confirm';
 *
 * const refused: AuthorizeResult = { ok: false, code: 'action_mismatch' };
 * ```
 */
export type AuthorizeResult =
  | { readonly ok: true; readonly decision: ConfirmDecision }
  | { readonly ok: false; readonly code: (typeof AUTHORIZE_REFUSAL_CODES)[number] };

/**
 * Why a card click was refused (it is consumed either way).
 *
 * @example
 * ```ts
 * import { CARD_REFUSAL_CODES } from '@parley/confirm';
 *
 * console.log(CARD_REFUSAL_CODES.includes('forged')); // true
 * ```
 */
export const CARD_REFUSAL_CODES = [
  'forged',
  'unknown_confirmation',
  'settled',
  'not_allowed',
  'session_mismatch',
  'steps_required',
  'before_delivery',
] as const;

/**
 * Why an inbound message of a session with a pending (or just decided) confirmation was not
 * counted as a reply: `not_allowed`, `bot`, `stale_reply` (written before the prompt, or a
 * redelivered event that already counted), `before_delivery` (written or arrived before the
 * prompt's send resolved), `after_decision` (an answer to a confirmation decided moments ago).
 *
 * @example
 * ```ts
 * import { IGNORED_REPLY_CODES } from '@parley/confirm';
 *
 * console.log(IGNORED_REPLY_CODES.includes('before_delivery')); // true
 * ```
 */
export const IGNORED_REPLY_CODES = [
  'not_allowed',
  'bot',
  'stale_reply',
  'before_delivery',
  'after_decision',
] as const;

/**
 * A pending confirmation as {@link ConfirmGate.pending} lists it.
 *
 * @example
 * ```ts
 * import type { PendingConfirmation } from '@parley/confirm';
 *
 * const view: PendingConfirmation = {
 *   id: 'cfm_1', sessionKey: 'feishu:oc_1', actionName: 'sql.delete', requester: 'ou_a',
 *   state: 'prompted', step: 0, expiresAt: 300_000, delivered: true, restored: false, remote: false,
 * };
 * ```
 */
export interface PendingConfirmation {
  readonly id: string;
  readonly sessionKey: string;
  readonly actionName: string;
  readonly requester: string;
  /** `queued` behind another confirmation of the session, or `prompted`. */
  readonly state: 'queued' | 'prompted';
  /** Steps already answered (multi-step). */
  readonly step: number;
  readonly expiresAt?: number;
  /** The current prompt's `send` resolved: replies written from then on count. */
  readonly delivered: boolean;
  /** Loaded from the store after a restart (or followed from another gate). */
  readonly restored: boolean;
  /**
   * Prompted by another gate on the same store and followed here through `Store.watch`, so that
   * its reply is caught on this gate's bus too; the other gate holds the waiting `request`.
   */
  readonly remote: boolean;
}

/**
 * The events of a {@link ConfirmGate}.
 *
 * @example
 * ```ts
 * import type { ConfirmEvents } from '@parley/confirm';
 *
 * const onDecided = (event: ConfirmEvents['decided']): void => console.log(event.decision.outcome);
 * ```
 */
export interface ConfirmEvents {
  /** A request waits behind another confirmation of its session (`whenPending: 'queue'`). */
  queued: { readonly id: string; readonly sessionKey: string; readonly position: number };
  /** A prompt (first, next step, or re-prompt) was sent. */
  prompted: {
    readonly id: string;
    readonly sessionKey: string;
    readonly step: number;
    readonly reprompt: boolean;
  };
  /** A confirmation settled; the decision is already recorded. */
  decided: { readonly decision: ConfirmDecision };
  /** A message of a pending session was not counted as a reply. */
  ignored: {
    readonly id: string;
    readonly sessionKey: string;
    readonly senderId: string;
    readonly code: (typeof IGNORED_REPLY_CODES)[number];
  };
  /** A card click was refused. */
  refused: {
    readonly code: (typeof CARD_REFUSAL_CODES)[number];
    readonly senderId: string;
    readonly id?: string;
  };
  /**
   * A store write, a notice, a host template or resume handler failed, or a stored record could
   * not be read (`corrupt_record`); the gate keeps going and the confirmation concerned settles
   * as a refusal where one is waiting.
   */
  error: { readonly error: unknown; readonly id?: string };
}

/**
 * Texts the gate sends; each can be replaced.
 *
 * @example
 * ```ts
 * import type { ConfirmMessages } from '@parley/confirm';
 *
 * const messages: Partial<ConfirmMessages> = { prompt: (summary) => `OK to run ${summary}? (yes/no)` };
 * ```
 */
export interface ConfirmMessages {
  /**
   * The first prompt; `allowAlways` when standing allowances are on. `summary` is the rendered
   * one: action name, short digest, and the (visibly shortened) summary.
   */
  prompt(summary: string, allowAlways: boolean): string;
  /** Sent after an unrecognised reply under `unrecognised: 'reprompt'`. */
  reprompt(summary: string, attemptsLeft: number): string;
  /** Sent when a confirmation timed out. */
  timedOut(summary: string): string;
  /** Sent when a confirmation made before a restart is answered and no `resume` handler exists. */
  expired(summary: string): string;
}

/**
 * Called after a restart for a confirmation made before it, with its final decision and the
 * persisted action. Execute only when `gate.authorize(decision, action)` says ok.
 *
 * @example
 * ```ts
 * import type { ResumeHandler } from '@parley/confirm';
 *
 * const resumeDelete: ResumeHandler = async (decision, gate) => {
 *   const auth = await gate.authorize(decision, decision.action);
 *   if (auth.ok) console.log('run', decision.action.args);
 * };
 * ```
 */
export type ResumeHandler = (decision: ConfirmDecision, gate: ConfirmGate) => void | Promise<void>;

/**
 * Options for {@link createConfirmGate}.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import type { ConfirmGateOptions } from '@parley/confirm';
 *
 * const options: ConfirmGateOptions = { bus: createMessageBus(), approvers: 'any', whenPending: 'reject' };
 * ```
 */
export interface ConfirmGateOptions {
  readonly bus: MessageBus;
  /**
   * Where pending confirmations, decisions and allowances live; in memory by default. Share one
   * (e.g. `@parley/redis`) between replicas: with `Store.watch`, a decision recorded by any gate
   * settles the waiting request on the gate that asked.
   */
  readonly store?: Store;
  readonly clock?: Clock;
  /** Makes confirmation ids; nanoid with a `cfm_` prefix by default. Ids must not contain `.`. */
  readonly generateId?: IdGenerator;
  /** Default wait once prompted; {@link DEFAULT_CONFIRM_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Who may answer; `requester` by default. */
  readonly approvers?: ApproverPolicy;
  /** A second request for a session that has one pending: `queue` (default), `reject` or `supersede`. */
  readonly whenPending?: 'queue' | 'reject' | 'supersede';
  /** Most requests queued per session; 8 by default. Past it, `refused` / `session_busy`. */
  readonly maxQueuedPerSession?: number;
  /**
   * Most confirmations this gate holds at once (prompted and queued, every session);
   * {@link DEFAULT_MAX_PENDING} by default. Past it a request settles at once as `refused` /
   * `too_many_pending` (not recorded), so a flood of chats cannot grow the gate without bound.
   */
  readonly maxPending?: number;
  /**
   * How long after a confirmation is decided its approvers' answers to it ("确认" sent twice, a
   * late button word) are still consumed instead of reaching the agent as chat;
   * {@link DEFAULT_AFTER_DECISION_MS} by default, 0 turns it off.
   */
  readonly afterDecisionMs?: number;
  /**
   * Lets approvers reply "more" / 「更多」 to a shortened prompt to receive the rest of the
   * summary and the full canonical arguments, page by page; off by default.
   */
  readonly summaryPaging?: boolean;
  /** An unrecognised reply: `cancel` (default) or `reprompt` up to `maxReprompts` times. */
  readonly unrecognised?: 'cancel' | 'reprompt';
  /** 2 by default. */
  readonly maxReprompts?: number;
  readonly vocabulary?: Vocabulary;
  /** Signs card tokens (HMAC-SHA256) so any replica can check a click. */
  readonly secret?: string | Uint8Array;
  /** Send a card with buttons along with the text prompt; true by default. */
  readonly cards?: boolean;
  /** Enables "always allow this action here" for this long; off by default. */
  readonly standingAllowanceMs?: number;
  readonly messages?: Partial<ConfirmMessages>;
  /** Handlers by action name for confirmations restored after a restart. */
  readonly resume?: Readonly<Record<string, ResumeHandler>>;
  /** Store key prefix; `confirm:` by default. */
  readonly keyPrefix?: string;
  /**
   * A stable name of this replica (a pod name, a host), kept across its restarts. Confirmations it
   * prompts are stored with it, and a gate that starts takes over (restores) only those of its own
   * replica id, and those stored without one, following the others as another live replica's.
   * Without it a starting gate takes over every pending confirmation of the store, which is right
   * for a single instance but not when other replicas are alive.
   */
  readonly replicaId?: string;
  /** How long decisions stay in the audit trail; 7 days by default. */
  readonly auditTtlMs?: number;
  /** Called when an event listener throws; by default the error is rethrown in a microtask. */
  readonly onListenerError?: (error: unknown, event: string) => void;
}

/**
 * A confirmation gate: asks a chat session to confirm an action, intercepts the answer on the
 * bus, and records the decision. See {@link createConfirmGate}.
 *
 * @example
 * ```ts
 * import type { ConfirmGate, ConfirmAction } from '@parley/confirm';
 *
 * async function guarded(gate: ConfirmGate, action: ConfirmAction, run: () => Promise<void>): Promise<boolean> {
 *   const decision = await gate.request({ sessionKey: 'feishu:oc_1', action, summary: action.name, requester: 'ou_a' });
 *   const auth = await gate.authorize(decision, action);
 *   if (auth.ok) await run();
 *   return auth.ok;
 * }
 * ```
 */
export interface ConfirmGate {
  /** Prompts the session and resolves to the decision; rejects only on misuse. */
  request(request: ConfirmRequest): Promise<ConfirmDecision>;
  /** Checks, once, that a recorded confirmed decision covers exactly this action. */
  authorize(decision: ConfirmDecision | string, action: ConfirmAction): Promise<AuthorizeResult>;
  /**
   * Re-reads a confirmation's decision from the store (settled by another gate) and settles it
   * here. Needed only with a store without `watch`: otherwise the gate follows the store itself.
   */
  reconcile(id: string): Promise<ConfirmDecision | undefined>;
  /** Every recorded decision still in the audit trail. */
  audit(): AsyncIterable<ConfirmDecision>;
  /** The confirmations pending in this gate. */
  pending(): readonly PendingConfirmation[];
  /** Resolves once confirmations persisted before a restart are loaded. */
  readonly ready: Promise<void>;
  /** Subscribes to an event of {@link ConfirmEvents}; returns a function that unsubscribes. */
  on: Emitter<ConfirmEvents>['on'];
  /** Removes the interceptor and resolves local waiters as `aborted` / `closed`; persisted confirmations stay for the next gate. */
  close(): Promise<void>;
}
