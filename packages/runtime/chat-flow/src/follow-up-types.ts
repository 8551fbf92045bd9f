import type { Clock, JsonValue, Store, Unsubscribe } from '@parley/core';

/**
 * Every code {@link FollowUps} refuses with (as data, never thrown).
 *
 * | code | when |
 * |---|---|
 * | `exists` | `schedule`: a follow-up with this id is already stored |
 * | `not_found` | `arm`, `resolve`: no follow-up under the key |
 * | `corrupt_record` | `schedule`, `arm`, `resolve`: the stored value is not a follow-up of this id (never used) |
 * | `record_version` | `schedule`, `arm`, `resolve`: the stored follow-up has another record format (never used, never overwritten) |
 * | `already_sent` | `arm`, `resolve`: it was sent before (nothing is armed) |
 * | `outcome_unknown` | `arm`: it was claimed for sending and never marked sent, and its claim's lease ended (a crash mid-send); not resent |
 * | `in_flight` | `arm`, `resolve`: a process is sending it under a lease that is still valid |
 * | `not_claimed` | `resolve`: no send was claimed, so there is no unknown outcome to settle |
 * | `conflict` | `resolve`: the record kept changing under the write (the kernel's `write_conflict`) |
 * | `too_many` | `schedule`, `arm`: `maxArmed` timers are armed already (it stays stored, unarmed) |
 * | `closed` | `close()` was called |
 *
 * @example
 * ```ts
 * import { FOLLOW_UP_REFUSAL_CODES } from '@parley/chat-flow';
 *
 * console.log(FOLLOW_UP_REFUSAL_CODES.includes('already_sent')); // true
 * ```
 */
export const FOLLOW_UP_REFUSAL_CODES = [
  'exists',
  'not_found',
  'corrupt_record',
  'record_version',
  'already_sent',
  'outcome_unknown',
  'in_flight',
  'not_claimed',
  'conflict',
  'too_many',
  'closed',
] as const;

/**
 * A code of {@link FOLLOW_UP_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { FollowUpRefusalCode } from '@parley/chat-flow';
 *
 * const code: FollowUpRefusalCode = 'not_found';
 * ```
 */
export type FollowUpRefusalCode = (typeof FOLLOW_UP_REFUSAL_CODES)[number];

/**
 * The most timers one {@link FollowUps} arms at a time unless `maxArmed` says otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ARMED_FOLLOW_UPS } from '@parley/chat-flow';
 *
 * console.log(DEFAULT_MAX_ARMED_FOLLOW_UPS); // 10000
 * ```
 */
export const DEFAULT_MAX_ARMED_FOLLOW_UPS = 10_000;

/**
 * How long a process's claim of a send holds unless `sendLeaseMs` says otherwise: one minute. A send
 * still running past it cannot mark the follow-up sent (its outcome reads as unknown).
 *
 * @example
 * ```ts
 * import { DEFAULT_SEND_LEASE_MS } from '@parley/chat-flow';
 *
 * console.log(DEFAULT_SEND_LEASE_MS); // 60000
 * ```
 */
export const DEFAULT_SEND_LEASE_MS = 60_000;

/**
 * A follow-up as stored (plain JSON): an absolute due time (epoch ms), what to send, when a process
 * claimed it for sending (`sendingAt`) and when it was marked sent (`sentAt`), each `null` until then.
 *
 * @example
 * ```ts
 * import type { FollowUp } from '@parley/chat-flow';
 *
 * const due = (f: FollowUp, now: number) => f.sentAt === null && f.dueAt <= now;
 * ```
 */
export interface FollowUp<TPayload extends JsonValue = JsonValue> {
  readonly kind: 'parley.follow-up';
  readonly id: string;
  readonly dueAt: number;
  readonly payload: TPayload;
  readonly createdAt: number;
  /** Written under the lease of the record before `send` runs: only the lease holder sends. */
  readonly sendingAt: number | null;
  readonly sentAt: number | null;
}

/**
 * Options of {@link createFollowUps}.
 *
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import type { FollowUpsOptions } from '@parley/chat-flow';
 *
 * const clock = createManualClock();
 * const options: FollowUpsOptions<string> = {
 *   store: createMemoryStore({ clock }),
 *   clock,
 *   send: (followUp) => console.log(followUp.payload),
 * };
 * ```
 */
export interface FollowUpsOptions<TPayload extends JsonValue = JsonValue> {
  readonly store: Store;
  /** Due times and timers; the system clock by default. */
  readonly clock?: Clock;
  /** Records live under `keyPrefix + id`; `follow-up:` by default. */
  readonly keyPrefix?: string;
  /**
   * Sends a due follow-up, after this process claimed it. It is marked sent once this resolves; a
   * throw releases the claim and leaves it unsent (event `failed`) until it is armed again. When
   * the store cannot take the claim back, `arm` in this process gives it back then; elsewhere the
   * claim reads as an unknown outcome.
   */
  readonly send: (followUp: FollowUp<TPayload>) => void | Promise<void>;
  /** Most timers armed at once; {@link DEFAULT_MAX_ARMED_FOLLOW_UPS} by default. */
  readonly maxArmed?: number;
  /**
   * How long the lease of a claimed send holds ({@link DEFAULT_SEND_LEASE_MS}): another process
   * finds it `in_flight` until then, and `outcome_unknown` after when it was never marked sent.
   */
  readonly sendLeaseMs?: number;
}

/**
 * The events of {@link FollowUps}, emitted after the store answered.
 *
 * @example
 * ```ts
 * import type { FollowUpsEvents } from '@parley/chat-flow';
 *
 * const log = (e: FollowUpsEvents['failed']) => console.log(`${e.id} not sent: ${e.message}`);
 * ```
 */
export interface FollowUpsEvents {
  scheduled: { id: string; dueAt: number };
  sent: { id: string; dueAt: number; sentAt: number };
  /** Sending or marking it sent failed (a failed mark keeps the claim: its outcome is unknown). */
  failed: {
    id: string;
    /** Why, in words for a person or a log. */
    message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    reason: string;
    at: number;
  };
  /** It fell due here but another process claimed it first: this one did not send it. */
  skipped: {
    id: string;
    code: 'claimed';
    /** @deprecated Use `code` (the same word); removed in the next minor version. */
    reason: 'claimed';
    at: number;
  };
  /** `arm` found a claim without `sentAt`: a send whose outcome nobody knows; it is not resent. */
  'outcome-unknown': { id: string; sendingAt: number; at: number };
}

/**
 * A follow-up written or armed, or a refusal.
 *
 * @example
 * ```ts
 * import type { FollowUpResult } from '@parley/chat-flow';
 *
 * const dueAt = (r: FollowUpResult) => (r.ok ? r.followUp.dueAt : undefined);
 * ```
 */
export type FollowUpResult<TPayload extends JsonValue = JsonValue> =
  | { readonly ok: true; readonly followUp: FollowUp<TPayload> }
  | {
      readonly ok: false;
      readonly code: FollowUpRefusalCode;
      /** Why, in words for a person or a log. */
      readonly message: string;
      /** @deprecated Use `message` (the same text); removed in the next minor version. */
      readonly reason: string;
    };

/**
 * Durable one-shot follow-ups ("remind me in 7 days"): stored with an absolute due time, armed as a
 * timer on the clock, claimed under a fenced lease when due, sent by the lease holder, then marked sent.
 *
 * @example
 * ```ts
 * import type { FollowUps } from '@parley/chat-flow';
 *
 * const rearm = (followUps: FollowUps, ids: readonly string[]) => Promise.all(ids.map((id) => followUps.arm(id)));
 * ```
 */
export interface FollowUps<TPayload extends JsonValue = JsonValue> {
  /** Stores a new follow-up due at `dueAt` (epoch ms) and arms it. */
  schedule(id: string, dueAt: number, payload: TPayload): Promise<FollowUpResult<TPayload>>;
  /**
   * Arms a stored follow-up again (a restarted process): at once when its due time has passed.
   * Arming one that is armed already keeps a single timer.
   */
  arm(id: string): Promise<FollowUpResult<TPayload>>;
  /**
   * Settles a send whose outcome was unknown (`outcome_unknown`), once the host checked: `'sent'`
   * marks it sent, `'unsent'` releases the claim so the next `arm` sends it.
   */
  resolve(id: string, outcome: 'sent' | 'unsent'): Promise<FollowUpResult<TPayload>>;
  /** The stored follow-up, or `undefined`. */
  get(id: string): Promise<FollowUp<TPayload> | undefined>;
  /** The key of a follow-up's record. */
  keyOf(id: string): string;
  /** Timers armed now. */
  readonly armed: number;
  /** Resolves when every follow-up that fell due has been sent and marked (or has failed). */
  settled(): Promise<void>;
  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof FollowUpsEvents & string>(
    event: K,
    listener: (payload: FollowUpsEvents[K]) => void,
  ): Unsubscribe;
  /** Clears every timer (the process stops); the stored follow-ups stay for the next `arm`. */
  close(): void;
}
