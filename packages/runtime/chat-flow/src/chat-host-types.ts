import type { Clock, JsonValue, Unsubscribe } from '@parley/core';
import type { FlowSessionRefusalCode } from './stored-session-refusals.js';
import type {
  FlowSaveResult,
  FlowSessionStore,
  StoredFlowSession,
  StoredSubmitResult,
} from './stored-session-types.js';

/**
 * Every code a chat-flow host refuses with, besides the stored session's own
 * ({@link FLOW_SESSION_REFUSAL_CODES}).
 *
 * | code | when |
 * |---|---|
 * | `duplicate` | `reply`: this message id was processed for the session before (also after a restart) |
 * | `invalid_message_id` | `reply`: a message id that is not a string of 1…{@link MAX_MESSAGE_ID_LENGTH} characters |
 * | `too_many_sessions` | `maxSessions` sessions are open and busy; nothing was read (a `start` leaves its new record stored) |
 * | `callback_failed` | `read`, `after`, `begin`, `ask` or an effect threw; what was written stays |
 * | `outcome_unknown` | an effect was claimed and never marked done: it is not run again until `resolveEffect` |
 * | `not_claimed` | `resolveEffect`: no effect outcome is unknown |
 *
 * @example
 * ```ts
 * import { CHAT_FLOW_REFUSAL_CODES } from '@parley/chat-flow';
 *
 * console.log(CHAT_FLOW_REFUSAL_CODES.includes('duplicate')); // true
 * ```
 */
export const CHAT_FLOW_REFUSAL_CODES = [
  'duplicate',
  'invalid_message_id',
  'too_many_sessions',
  'callback_failed',
  'outcome_unknown',
  'not_claimed',
] as const;

/**
 * A code of {@link CHAT_FLOW_REFUSAL_CODES} or of the stored session.
 *
 * @example
 * ```ts
 * import type { ChatFlowRefusalCode } from '@parley/chat-flow';
 *
 * const code: ChatFlowRefusalCode = 'outcome_unknown';
 * ```
 */
export type ChatFlowRefusalCode = (typeof CHAT_FLOW_REFUSAL_CODES)[number] | FlowSessionRefusalCode;

/**
 * An effect claim as kept in the session record (under `data.chatFlow`): written before the effect
 * runs, marked `done` by the next write after it returned.
 *
 * @example
 * ```ts
 * import type { ChatEffectClaim } from '@parley/chat-flow';
 *
 * const unknown = (c: ChatEffectClaim | null) => c !== null && c.state === 'running';
 * ```
 */
export interface ChatEffectClaim {
  readonly name: string;
  readonly step: string;
  readonly part: number;
  readonly state: 'running' | 'done';
  readonly claimedAt: number;
  readonly doneAt: number | null;
}

/**
 * What the host keeps in each session record's data under `chatFlow`: the last processed message
 * ids and the last effect claim. Plain JSON.
 *
 * @example
 * ```ts
 * import type { ChatFlowLedger } from '@parley/chat-flow';
 *
 * const empty: ChatFlowLedger = { seen: [], effect: null };
 * ```
 */
export interface ChatFlowLedger {
  readonly seen: readonly string[];
  readonly effect: ChatEffectClaim | null;
}

/**
 * What the host's callbacks get: the session, its data, and the ways to change them. Writes made
 * through it carry the host's ledger; use them instead of the session's own `submit` and `update`.
 *
 * @example
 * ```ts
 * import type { ChatContext } from '@parley/chat-flow';
 *
 * const next = async (ctx: ChatContext<'goal', unknown, { n: number }>) => {
 *   ctx.setData({ n: ctx.data.n + 1 });
 *   await ctx.save();
 * };
 * ```
 */
export interface ChatContext<TStep extends string = string, TContext = unknown, TData = JsonValue> {
  readonly id: string;
  readonly session: StoredFlowSession<TStep, TContext, TData>;
  /** The host's data, without the ledger. */
  readonly data: TData;
  /** Replaces the host's data for the next write (the end of the turn at the latest). */
  setData(data: TData): void;
  /** Submits an answer with the data (and the ledger) in one compare-and-set; a completion runs `after`. */
  submit(
    fields: unknown,
    options?: { readonly transient?: { readonly [field: string]: JsonValue } },
  ): Promise<StoredSubmitResult<TStep, TContext>>;
  /** Writes the data (and the ledger). */
  save(): Promise<FlowSaveResult>;
  /**
   * Runs `run` once: a claim is written first (compare-and-set; or it was, with the completion, when
   * `claims` named it), then `run` runs, and the next write marks it done. While an earlier claim's
   * outcome is unknown it rejects (the turn ends `outcome_unknown`) and runs nothing. When `run`
   * throws, the claim stays: the outcome is unknown (event `outcome-unknown`).
   */
  effect<T>(name: string, run: () => T | Promise<T>): Promise<T>;
  /** Asks the current question (the `ask` callback with the session's prompt). */
  ask(): Promise<void>;
}

/**
 * Options of {@link createChatFlowHost}.
 *
 * @example
 * ```ts
 * import type { ChatFlowHostOptions } from '@parley/chat-flow';
 *
 * const read: ChatFlowHostOptions<'goal', unknown, { n: number }>['read'] = (text) => ({ goal: text });
 * ```
 */
export interface ChatFlowHostOptions<TStep extends string = string, TContext = unknown, TData = JsonValue> {
  /** The sessions, from `createFlowSessionStore`; its data must be a JSON object (the ledger is added). */
  readonly sessions: FlowSessionStore<TStep, TContext, TData>;
  /**
   * A reply → the fields to submit, or `undefined` when the callback answered it itself. Without
   * `after` and `claims` a reply takes no lease, so `read` runs again when its answer lost the
   * compare-and-set to another replica's write: keep effects out of it.
   */
  readonly read: (text: string, ctx: ChatContext<TStep, TContext, TData>) => unknown | Promise<unknown>;
  /**
   * The effect a completion of `step`/`part` runs, if any: its claim is written by the same
   * compare-and-set as the completion, so `ctx.effect(name, …)` in `after` runs without another write.
   */
  readonly claims?: (done: { readonly step: TStep; readonly part: number }) => string | undefined;
  /** Runs after a submission completed a step (or part) `step`/`part`; the host asks next unless it did. */
  readonly after?: (
    done: { readonly step: TStep; readonly part: number },
    ctx: ChatContext<TStep, TContext, TData>,
  ) => void | Promise<void>;
  /**
   * Runs when a session was started (`'start'`) or a stored one opened again (`'resume'`); the host
   * asks the current question next unless this asked or returned `false`.
   */
  readonly begin?: (
    ctx: ChatContext<TStep, TContext, TData>,
    how: 'start' | 'resume',
  ) => undefined | boolean | Promise<undefined | boolean>;
  /** Sends the current question; not called when there is none. */
  readonly ask?: (prompt: string, ctx: ChatContext<TStep, TContext, TData>) => void | Promise<void>;
  /** Called with each handle the host opens, before anything runs on it (to add listeners). */
  readonly attach?: (session: StoredFlowSession<TStep, TContext, TData>) => void;
  readonly clock?: Clock;
  /** Most sessions open at once ({@link DEFAULT_MAX_CHAT_SESSIONS}); idle ones are closed first. */
  readonly maxSessions?: number;
  /**
   * How many of the most recently used open sessions keep their record decoded
   * ({@link DEFAULT_MAX_DECODED_SESSIONS}). An older idle one keeps only the JSON text its last write
   * stored, and its next turn decodes that text again (no store read): less memory and collector
   * work per open session, a few microseconds more on the turn that comes back.
   */
  readonly maxDecodedSessions?: number;
  /** Message ids remembered per session ({@link DEFAULT_MAX_SEEN_MESSAGES}). */
  readonly maxSeenMessages?: number;
  /**
   * How long one turn holds the session's lease ({@link DEFAULT_TURN_LEASE_MS}); longer than the
   * slowest turn (callbacks and effects included), or its writes are refused `lease_lost`.
   */
  readonly turnLeaseMs?: number;
}

/**
 * What `start`, `open`, `reply` and `resolveEffect` end with: done (with the step the session is at
 * now), or refused with a code and, for `callback_failed` and `store_failed`, the original error.
 *
 * @example
 * ```ts
 * import type { ChatFlowResult } from '@parley/chat-flow';
 *
 * const line = (r: ChatFlowResult) => (r.ok ? `at ${r.step}` : `refused ${r.code}`);
 * ```
 */
export type ChatFlowResult =
  | { readonly ok: true; readonly id: string; readonly step: string; readonly version: number }
  | {
      readonly ok: false;
      readonly id: string;
      readonly code: ChatFlowRefusalCode;
      /** Why, in words for a person or a log. */
      readonly message: string;
      /** @deprecated Use `message` (the same text); removed in the next minor version. */
      readonly reason: string;
      readonly cause?: unknown;
    };

/**
 * The events of a {@link ChatFlowHost}, emitted after the store answered.
 *
 * @example
 * ```ts
 * import type { ChatFlowHostEvents } from '@parley/chat-flow';
 *
 * const page = (e: ChatFlowHostEvents['outcome-unknown']) => console.log(`check ${e.name} of ${e.id}`);
 * ```
 */
export interface ChatFlowHostEvents {
  opened: { id: string; version: number; resumed: boolean };
  duplicate: { id: string; messageId: string; at: number };
  'effect-claimed': { id: string; name: string; step: string; part: number; at: number };
  'effect-done': { id: string; name: string; step: string; part: number; at: number };
  /** A claim without `done` was found on open, or an effect threw: it is not run again by itself. */
  'outcome-unknown': { id: string; name: string; step: string; part: number; claimedAt: number };
  refused: {
    id: string;
    code: ChatFlowRefusalCode;
    message: string;
    /** @deprecated Use `message` (the same text); removed in the next minor version. */
    reason: string;
    at: number;
  };
}

/**
 * A chat-flow host: replies of many chat sessions in, each read for its current step, submitted
 * to its stored flow session, followed by the step's effects and the next question.
 *
 * @example
 * ```ts
 * import type { ChatFlowHost } from '@parley/chat-flow';
 *
 * const onMessage = (host: ChatFlowHost, chat: string, text: string, id: string) => host.reply(chat, text, { messageId: id });
 * ```
 */
export interface ChatFlowHost<TData = JsonValue> {
  /** Creates a session (refused `exists` when stored already), runs `begin` and asks its first question. */
  start(id: string, data: TData): Promise<ChatFlowResult>;
  /** Opens a stored session (after a restart): reports an unknown effect outcome, runs `begin`, asks again. */
  open(id: string): Promise<ChatFlowResult>;
  /**
   * Processes one reply; replies of one session run one at a time, in call order, each on the
   * committed record under the session's lease (`lease_held` while another replica's turn holds it).
   */
  reply(id: string, text: string, options?: { readonly messageId?: string }): Promise<ChatFlowResult>;
  /** Settles an unknown effect outcome once a person checked: `done` keeps it, `not_done` allows a new run. */
  resolveEffect(id: string, outcome: 'done' | 'not_done'): Promise<ChatFlowResult>;
  /** Sessions open now. */
  readonly size: number;
  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof ChatFlowHostEvents & string>(
    event: K,
    listener: (payload: ChatFlowHostEvents[K]) => void,
  ): Unsubscribe;
  /** Closes every open session handle (a waiting retry ends `closed`); later calls are refused `closed`. */
  close(): void;
}
