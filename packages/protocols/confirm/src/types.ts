import type { MessageBus } from '@parley/bus';
import type { Clock, ConsentLedger, Emitter, IdGenerator, Store } from '@parley/core';
import type { ConfirmAction } from './digest.js';
import type { Vocabulary } from './vocabulary.js';
import type { ApproverPolicy } from './outcomes.js';
import type {
  AuthorizeResult,
  ConfirmDecision,
  ConfirmRequest,
  FollowedConfirmation,
  PendingConfirmation,
} from './decision.js';
import type { ConfirmEvents, ConfirmMessages } from './events.js';

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
   * {@link DEFAULT_MAX_PENDING_CONFIRMATIONS} by default. Past it a request settles at once as `refused` /
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
  /**
   * A consent ledger (`@parley/ledger`'s `createLedger`, or any `ConsentLedger` of `@parley/core`) the gate
   * appends every fact of its confirmations to, in order: the request (before it is prompted), each
   * delivered prompt, the answer, the decision and the single authorization. Fails closed: a
   * request that cannot be recorded is refused (`not_recorded`, never prompted), and `authorize`
   * refuses `not_recorded` unless the decision, every prompt of it and the authorization are recorded.
   */
  readonly ledger?: ConsentLedger;
  /**
   * `false` lets confirmations go on when an append to `ledger` fails (each failure is an `error`
   * event with code `not_recorded`); `true` (the default) fails closed as `ledger` describes.
   */
  readonly ledgerRequired?: boolean;
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
  /**
   * The confirmations this gate holds: its own (prompted or queued, or restored after a restart)
   * and those of other gates it loaded because a reply, click or deadline of theirs reached it
   * (`remote`). Others' pending confirmations it only follows are counted by `followed()`.
   */
  pending(): readonly PendingConfirmation[];
  /**
   * The confirmations pending on other gates of the same store that this gate follows without
   * holding them (with `Store.watch`): it keeps a compact entry of each (session, version,
   * deadline) and reads the record from the store when a message of the session, a click or the
   * deadline needs it, so the records it holds are its own pending work.
   */
  followed(): readonly FollowedConfirmation[];
  /** Resolves once confirmations persisted before a restart are loaded. */
  readonly ready: Promise<void>;
  /** Subscribes to an event of {@link ConfirmEvents}; returns a function that unsubscribes. */
  on: Emitter<ConfirmEvents>['on'];
  /** Removes the interceptor and resolves local waiters as `aborted` / `closed`; persisted confirmations stay for the next gate. */
  close(): Promise<void>;
}
