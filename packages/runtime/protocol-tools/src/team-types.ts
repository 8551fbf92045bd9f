import type { Store, Unsubscribe } from '@parley/core';
import type {
  CorrelateErrorCode,
  Correlator,
  Reply,
  RequestPromise,
  ResponseOf,
  shutdownProtocol,
  TrackedRequest,
} from '@parley/correlate';

/**
 * Why the team lead refused an operation before anything was sent (its own checks; the
 * correlator's codes come through as they are).
 *
 * @example
 * ```ts
 * import { TEAM_REFUSAL_CODES } from '@parley/protocol-tools';
 *
 * console.log(TEAM_REFUSAL_CODES.includes('already_pending')); // true
 * ```
 */
export const TEAM_REFUSAL_CODES = [
  'unknown_teammate',
  'already_shut_down',
  'already_pending',
  'not_a_plan',
] as const;

/**
 * One of {@link TEAM_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { TeamRefusalCode } from '@parley/protocol-tools';
 *
 * const code: TeamRefusalCode = 'unknown_teammate';
 * ```
 */
export type TeamRefusalCode = (typeof TEAM_REFUSAL_CODES)[number];

/**
 * A "no" from the team lead, as data: its own code, or the correlator's (`invalid_payload`,
 * `unknown_request`, `not_pending`, `too_many_pending`, `send_failed`, `closed`…).
 *
 * @example
 * ```ts
 * import type { TeamRefusal } from '@parley/protocol-tools';
 *
 * const refusal: TeamRefusal = { ok: false, code: 'not_a_plan', message: 'req_2 is a shutdown request' };
 * ```
 */
export interface TeamRefusal {
  readonly ok: false;
  readonly code: TeamRefusalCode | CorrelateErrorCode;
  readonly message: string;
}

/**
 * Where a teammate stands, as the lead sees it: `shutdown_pending` while a shutdown request to it
 * is pending, then `shut_down` (approved), `working` (rejected or cancelled) or `unresponsive`
 * (expired).
 *
 * @example
 * ```ts
 * import type { TeammateStatus } from '@parley/protocol-tools';
 *
 * const status: TeammateStatus = 'unresponsive';
 * ```
 */
export type TeammateStatus = 'working' | 'shutdown_pending' | 'shut_down' | 'unresponsive';

/**
 * The lead's record of one teammate: plain data, a copy.
 *
 * @example
 * ```ts
 * import type { TeammateRecord } from '@parley/protocol-tools';
 *
 * const line = (t: TeammateRecord): string => `${t.name}: ${t.status} (${t.last?.id ?? 'no request yet'})`;
 * ```
 */
export interface TeammateRecord {
  readonly name: string;
  readonly status: TeammateStatus;
  /** The latest request of either protocol between the lead and this teammate, as last seen. */
  readonly last?: TrackedRequest;
  /** Replies from this teammate the lead's correlator refused as `late`. */
  readonly lateReplies: number;
}

/**
 * A shutdown request the lead sent: its id and the promise of the teammate's reply (it rejects
 * with the correlator's `timeout`, `cancelled` or `closed`; the team lead already handles that
 * rejection, so leaving it unawaited is safe).
 *
 * @example
 * ```ts
 * import type { ShutdownRequested } from '@parley/protocol-tools';
 *
 * const show = (sent: ShutdownRequested): string => `shutdown ${sent.requestId} pending`;
 * ```
 */
export interface ShutdownRequested {
  readonly ok: true;
  readonly requestId: string;
  readonly reply: RequestPromise<Reply<ResponseOf<typeof shutdownProtocol>>>;
}

/**
 * A plan the lead reviewed: the request as its answer settled it.
 *
 * @example
 * ```ts
 * import type { PlanReviewed } from '@parley/protocol-tools';
 *
 * const show = (done: PlanReviewed): string => `${done.request.id} ${done.request.state}`;
 * ```
 */
export interface PlanReviewed {
  readonly ok: true;
  readonly request: TrackedRequest;
}

/**
 * The seed's two trackers, read from the lead's correlator (oldest first): the shutdown requests
 * the lead sent and the plans teammates submitted, by request_id.
 *
 * @example
 * ```ts
 * import type { TeamTrackers } from '@parley/protocol-tools';
 *
 * const trackers: TeamTrackers = {
 *   shutdown_requests: { req_1: { target: 'alice', status: 'approved' } },
 *   plan_requests: { req_2: { from: 'bob', plan: 'Refactor auth in 3 stages', status: 'pending' } },
 * };
 * ```
 */
export interface TeamTrackers {
  readonly shutdown_requests: Readonly<
    Record<
      string,
      { readonly target: string; readonly status: TrackedRequest['state']; readonly reason?: string }
    >
  >;
  readonly plan_requests: Readonly<
    Record<
      string,
      {
        readonly from: string;
        readonly plan: string;
        readonly status: TrackedRequest['state'];
        readonly feedback?: string;
      }
    >
  >;
}

/**
 * Events of a team lead; each carries plain data.
 *
 * @example
 * ```ts
 * import type { TeamLeadEvents } from '@parley/protocol-tools';
 *
 * const onStatus = (e: TeamLeadEvents['status']): void => console.log(e.teammate.name, e.teammate.status);
 * ```
 */
export interface TeamLeadEvents {
  /** A shutdown request the lead sent settled, and the teammate's status follows it. */
  status: { readonly teammate: TeammateRecord; readonly request: TrackedRequest };
  /** A teammate submitted a plan; answer it with `review(request.id, …)`. */
  plan: { readonly request: TrackedRequest };
  /** Writing a teammate's record to the Store failed; the status holds in memory only. */
  error: { readonly teammate: string; readonly error: unknown };
}

/**
 * Options of {@link createTeamLead}.
 *
 * @example
 * ```ts
 * import { createCorrelator, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
 * import type { TeamLeadOptions } from '@parley/protocol-tools';
 *
 * const correlator = createCorrelator({ self: 'lead', protocols: [shutdownProtocol, planApprovalProtocol], send: () => {} });
 * const options: TeamLeadOptions = { correlator, teammates: ['alice', 'bob'] };
 * correlator.close();
 * ```
 */
export interface TeamLeadOptions {
  /** The lead's own correlator; it must speak `shutdownProtocol` and `planApprovalProtocol`. */
  readonly correlator: Correlator;
  /** The teammates' names (their correlators' `self`), at most {@link MAX_TEAMMATES}. */
  readonly teammates: readonly string[];
  /** The reason the lead refuses a shutdown request sent to it; `the lead shuts down last` by default. */
  readonly shutdownRefusal?: string;
  /**
   * Where the roster is kept across restarts (each teammate's status and late replies); in memory
   * only when omitted. Pending requests are the correlator's: give it a store too.
   */
  readonly store?: Store;
  /** Prefix of the roster's keys in `store`; `parley:team:<lead>:` by default. */
  readonly keyPrefix?: string;
}

/**
 * What {@link TeamLead.restore} found: how many teammates' records it took, and the teammates whose
 * record it could not read (corrupt, or written by another version), which stay `working`.
 *
 * @example
 * ```ts
 * import type { RosterRestored } from '@parley/protocol-tools';
 *
 * const found: RosterRestored = { restored: 2, ignored: [] };
 * ```
 */
export interface RosterRestored {
  readonly restored: number;
  readonly ignored: readonly string[];
}

/**
 * The most teammates one team lead takes.
 *
 * @example
 * ```ts
 * import { MAX_TEAMMATES } from '@parley/protocol-tools';
 *
 * console.log(MAX_TEAMMATES); // 1000
 * ```
 */
export const MAX_TEAMMATES = 1000;

/**
 * The lead's side of the team-protocols seed over its correlator: the roster, the shutdown
 * handshake, plan review, the pending requests per teammate and the seed's trackers.
 *
 * @example
 * ```ts
 * import { createCorrelator, planApprovalProtocol, shutdownProtocol } from '@parley/correlate';
 * import { createTeamLead, type TeamLead } from '@parley/protocol-tools';
 *
 * const correlator = createCorrelator({ self: 'lead', protocols: [shutdownProtocol, planApprovalProtocol], send: () => {} });
 * const lead: TeamLead = createTeamLead({ correlator, teammates: ['alice'] });
 * console.log(lead.teammate('alice')?.status); // working
 * lead.close();
 * correlator.close();
 * ```
 */
export interface TeamLead {
  readonly correlator: Correlator;
  /** Every teammate, in the order given. */
  teammates(): TeammateRecord[];
  /** One teammate's record; `undefined` for a name not on the team. */
  teammate(name: string): TeammateRecord | undefined;
  /**
   * Asks a teammate to shut down. Refused as data, with nothing sent: `unknown_teammate`,
   * `already_shut_down`, `already_pending`, or the correlator's code (`invalid_payload`…).
   */
  requestShutdown(name: string, reason?: string): Promise<ShutdownRequested | TeamRefusal>;
  /**
   * Approves or rejects a plan a teammate submitted; `feedback` goes back as the reason. Refused as
   * data: `not_a_plan`, or the correlator's `unknown_request`, `not_pending`…
   */
  review(requestId: string, approve: boolean, feedback?: string): PlanReviewed | TeamRefusal;
  /** Requests between the lead and one teammate (every teammate when omitted) still pending, oldest first. */
  pending(name?: string): TrackedRequest[];
  /** The seed's `shutdown_requests` and `plan_requests`. */
  trackers(): TeamTrackers;
  /** Listens to an event; returns the function that stops listening. */
  on<K extends keyof TeamLeadEvents & string>(
    event: K,
    listener: (payload: TeamLeadEvents[K]) => void,
  ): Unsubscribe;
  /**
   * Reads the roster a previous process left in `store` (call it once, before any request, next to
   * the correlator's own `restore()`). Without a store it finds nothing.
   */
  restore(): Promise<RosterRestored>;
  /** Resolves when every roster write started so far has landed in the store (or failed). */
  idle(): Promise<void>;
  /** Stops listening to the correlator (which stays open: it is the caller's). */
  close(): void;
}
