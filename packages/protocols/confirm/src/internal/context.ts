import type { MessageBus, SessionAddress } from '@parley/bus';
import {
  type ChurnMap,
  createChurnMap,
  assertTimeoutMs,
  type Clock,
  type Committed,
  createEmitter,
  createKernel,
  createOwnerId,
  createMemoryStore,
  createDeadlineQueue,
  type DeadlineHandle,
  type DeadlineQueue,
  type Emitter,
  generateId,
  type IdGenerator,
  type Kernel,
  type Store,
  systemClock,
  type TimerHandle,
  createRecentMap,
  type RecentMap,
} from '@parley/core';
import type { ConfirmDecision, ConfirmStep } from '../decision.js';
import type { ConfirmationRecord } from './records.js';
import { confirmRules } from '../step.js';
import type { ConfirmGate, ConfirmGateOptions, ResumeHandler } from '../types.js';
import type { ConfirmEvents, ConfirmMessages } from '../events.js';
import { type ApproverPolicy, DEFAULT_CONFIRM_TIMEOUT_MS } from '../outcomes.js';
import { checkApprovers } from './checks.js';
import { DEFAULT_MESSAGES, type Keys, keysOf } from './records.js';
import type { Confirmation, ConfirmRules } from './confirmation.js';
import { createTokenCodec, type TokenCodec } from './token.js';

export const DAY_MS = 86_400_000;

/** How many counted event ids a gate remembers. */
export const MAX_COUNTED_EVENTS = 10_000;

/**
 * A confirmation held by this gate: its plain-JSON state (replaced only by `dispatch`) and what
 * cannot be data — its session's address, timer, waiters and write chain.
 */
export interface Entry {
  conf: Confirmation;
  readonly address: SessionAddress;
  /** Answers that arrived while the prompt was in flight, judged again when its send settles. */
  waiting?: (() => void)[] | undefined;
  /** Store writes of this entry, in order. */
  io: Promise<unknown>;
  /**
   * The pending record as this gate last committed it, with its store version: the kernel's basis
   * for the next write (no read; its compare-and-set lands only on exactly that version) and how a
   * store change is known to be this gate's own write. Undefined until it writes one.
   */
  committed?: Committed<ConfirmationRecord> | undefined;
  /** The timer of the answering window (or a follower's grace after it). */
  timer?: TimerHandle | undefined;
  signal?: AbortSignal | undefined;
  onAbort?: (() => void) | undefined;
  resolve?: ((decision: ConfirmDecision) => void) | undefined;
}

/** Everything the parts of one gate share: its settings, its collaborators and its live state. */
export interface GateContext {
  readonly bus: MessageBus;
  readonly clock: Clock;
  readonly store: Store;
  /** Writes every record (through the runner, persistence.ts) and reads them strictly. */
  readonly kernel: Kernel;
  readonly nextId: IdGenerator;
  readonly defaultTimeoutMs: number;
  readonly approvers: ApproverPolicy;
  /** What the pure step (`confirmStep`) reads of the gate's settings. */
  readonly rules: ConfirmRules;
  readonly auditTtlMs: number;
  readonly cards: boolean;
  readonly texts: ConfirmMessages;
  readonly resume: Readonly<Record<string, ResumeHandler>>;
  readonly prefix: string;
  /** Written into the records of confirmations this gate prompts; see `ConfirmGateOptions.replicaId`. */
  readonly replicaId: string | undefined;
  readonly keys: Keys;
  readonly tokens: TokenCodec;
  readonly events: Emitter<ConfirmEvents>;
  /**
   * The order in which this gate saw events: each inbound message and each prompt send it starts
   * or sees resolve takes the next number. Replies are judged by it, never by clock stamps.
   */
  arrivals: number;
  /** The prompted confirmation of each session this gate asked in (or restored). */
  readonly active: ChurnMap<string, Entry>;
  /** Requests waiting behind the active one, per session. */
  readonly queued: ChurnMap<string, Entry[]>;
  /** Every confirmation this gate holds a waiter or a restored record for. */
  readonly byId: ChurnMap<string, Entry>;
  /**
   * Confirmations pending on other gates of the same store that this gate loaded in full (a
   * message, click or deadline of theirs reached it), by id and by session.
   */
  readonly mirrors: ChurnMap<string, Entry>;
  readonly mirrorOf: ChurnMap<string, Entry>;
  /** The others it follows without holding them: a compact index entry each, by id and by session. */
  readonly followed: ChurnMap<string, Followed>;
  readonly followedOf: ChurnMap<string, Followed>;
  /** Per session, a followed one removed from the store within `afterDecisionMs` (at most `maxPending`). */
  readonly followedLately: ChurnMap<string, Followed>;
  /** The deadlines of the followed ones: one clock timer for all of them. */
  readonly deadlines: DeadlineQueue;
  /** The writes of confirmations settled here and not yet recorded, by id. */
  readonly settling: ChurnMap<string, Promise<unknown>>;
  /** Ids settled lately, so a late click is refused as `settled` without a store read. */
  readonly recentlySettled: RecentMap<string, true>;
  /** Platform events (channel + event id) counted as answers lately: a redelivery counts once. */
  readonly countedEvents: RecentMap<string, string>;
  /** Per session, the confirmation decided there within `afterDecisionMs` (at most `maxPending`). */
  readonly lately: ChurnMap<string, Entry>;
  /**
   * The key of the record this gate is writing right now, while the kernel call runs: a store that
   * reports a change from inside that call (a memory store) reports this gate's own write.
   */
  writing: string | undefined;
  closed: boolean;
  /** True until the confirmations persisted before a restart are loaded. */
  loading: boolean;
  ready: Promise<void>;
  /** The public gate, handed to resume handlers. */
  gate: ConfirmGate | undefined;
  /**
   * Re-reads an entry's record and takes it when newer (replica sync's `refresh`), so the lifecycle
   * can adopt a record it lost a write race to without importing the sync module.
   */
  readonly adopt: (entry: Entry) => void;
}

/**
 * Checks the options and builds the shared context of a new gate; `adopt` is replica sync's
 * re-read of a record (passed in, so the lifecycle reaches it without importing the sync module).
 */
export function createContext(
  options: ConfirmGateOptions,
  adopt: (ctx: GateContext, entry: Entry) => void,
): GateContext {
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const prefix = options.keyPrefix ?? 'confirm:';
  const ctx: GateContext = {
    bus: options.bus,
    clock,
    store,
    // The TTL of a record is its own `deadlineAt` (no grace added): step-store.ts sets it.
    kernel: createKernel({
      store,
      clock,
      graceMs: 0,
      owner: createOwnerId(options.replicaId ?? 'confirm'),
    }),
    nextId: options.generateId ?? (() => generateId('cfm_')),
    defaultTimeoutMs: assertTimeoutMs(options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS),
    approvers: checkApprovers(options.approvers ?? 'requester'),
    rules: confirmRules(options),
    auditTtlMs: assertTimeoutMs(options.auditTtlMs ?? 7 * DAY_MS, 'auditTtlMs'),
    cards: options.cards ?? true,
    texts: { ...DEFAULT_MESSAGES, ...options.messages },
    // Looked up by action name: a null-prototype copy, so "toString" or "constructor" is no handler.
    resume: Object.assign(Object.create(null) as Record<string, ResumeHandler>, options.resume),
    prefix,
    replicaId: options.replicaId,
    keys: keysOf(prefix),
    tokens: createTokenCodec(options.secret),
    events: createEmitter<ConfirmEvents>(
      options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
    ),
    arrivals: 0,
    active: createChurnMap(),
    queued: createChurnMap(),
    byId: createChurnMap(),
    mirrors: createChurnMap(),
    mirrorOf: createChurnMap(),
    followed: createChurnMap(),
    followedOf: createChurnMap(),
    followedLately: createChurnMap(),
    deadlines: createDeadlineQueue({ clock }),
    settling: createChurnMap(),
    recentlySettled: createRecentMap({ maxEntries: 10_000 }),
    countedEvents: createRecentMap({ maxEntries: MAX_COUNTED_EVENTS }),
    lately: createChurnMap(),
    writing: undefined,
    closed: false,
    loading: true,
    ready: Promise.resolve(),
    gate: undefined,
    adopt: (entry) => adopt(ctx, entry),
  };
  return ctx;
}

/** Forgets the oldest key of `lately` once it holds more than `max` (`break` ends the walk at once). */
export function keepAtMost<V>(lately: ChurnMap<string, V>, max: number): void {
  if (lately.size <= max) return;
  for (const oldest of lately.keys()) {
    lately.delete(oldest);
    break;
  }
}

/** Reports a failure the gate survives (a store write, a notice, a resume handler). */
export function fail(ctx: GateContext, error: unknown, id?: string): void {
  ctx.events.emit('error', id === undefined ? { error } : { error, id });
}

/** What a gate keeps of a confirmation another gate prompted until it has to load it. */
export interface Followed {
  readonly id: string;
  readonly sessionKey: string;
  /** The record's version this gate read last. */
  rev: number;
  /** The arrival number at which this gate learnt that version's prompt was delivered (`null`: not delivered). */
  deliveredSeq: number | null;
  expiresAt: number;
  /** Who may answer it, kept for the after-decision rule once its record is gone. */
  approvers: ApproverPolicy;
  steps: readonly ConfirmStep[] | null;
  /** Once removed from the store: until when answers to it are absorbed (the gate's clock). */
  until: number | undefined;
  deadline: DeadlineHandle | undefined;
  /** The load in progress, shared by everything that needs the full record meanwhile. */
  loading: Promise<Entry | undefined> | undefined;
}
