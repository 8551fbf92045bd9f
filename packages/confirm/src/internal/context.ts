import type { MessageBus } from '@parley/bus';
import {
  assertTimeoutMs,
  type Clock,
  createDeadlineQueue,
  createEmitter,
  createMemoryStore,
  type DeadlineQueue,
  type Emitter,
  generateId,
  type IdGenerator,
  type JsonValue,
  type Store,
  systemClock,
} from '@parley/core';
import {
  type ApproverPolicy,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  type ConfirmMessages,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  type ResumeHandler,
} from '../types.js';
import { DEFAULT_VOCABULARY, MAX_REPLY_LENGTH, type Vocabulary } from '../vocabulary.js';
import { checkApprovers, checkChoice, checkCount } from './checks.js';
import { RecentSet } from './recent.js';
import { DEFAULT_MESSAGES, type Entry } from './records.js';
import { createTokenCodec, type TokenCodec } from './token.js';

export const DAY_MS = 86_400_000;

/** Store keys of one gate, under its prefix. */
export interface Keys {
  readonly pendingPrefix: string;
  readonly decisionPrefix: string;
  pending(id: string): string;
  decision(id: string): string;
  /** The standing allowance that would cover an entry. */
  allow(entry: Entry): string;
}

/** Everything the parts of one gate share: its settings, its collaborators and its live state. */
export interface GateContext {
  readonly bus: MessageBus;
  readonly clock: Clock;
  readonly store: Store;
  readonly nextId: IdGenerator;
  readonly defaultTimeoutMs: number;
  readonly approvers: ApproverPolicy;
  readonly whenPending: 'queue' | 'reject' | 'supersede';
  readonly unrecognised: 'cancel' | 'reprompt';
  readonly maxQueued: number;
  readonly maxReprompts: number;
  readonly standingMs: number | undefined;
  readonly auditTtlMs: number;
  readonly vocabulary: Vocabulary;
  readonly cards: boolean;
  readonly texts: ConfirmMessages;
  readonly resume: Readonly<Record<string, ResumeHandler>>;
  readonly prefix: string;
  /** Written into the records of confirmations this gate prompts; see `ConfirmGateOptions.replicaId`. */
  readonly replicaId: string | undefined;
  readonly keys: Keys;
  readonly tokens: TokenCodec;
  readonly events: Emitter<ConfirmEvents>;
  readonly deadlines: DeadlineQueue;
  /** The prompted confirmation of each session this gate asked in (or restored). */
  readonly active: Map<string, Entry>;
  /** Requests waiting behind the active one, per session. */
  readonly queued: Map<string, Entry[]>;
  /** Every confirmation this gate holds a waiter or a restored record for. */
  readonly byId: Map<string, Entry>;
  /** Confirmations pending on other gates of the same store, by id and by session. */
  readonly mirrors: Map<string, Entry>;
  readonly mirrorOf: Map<string, Entry>;
  /** Ids settled lately, so a late click is refused as `settled` without a store read. */
  readonly recentlySettled: RecentSet;
  /** Platform events (channel + event id) counted as answers lately: a redelivery counts once. */
  readonly countedEvents: RecentSet;
  closed: boolean;
  /** True until the confirmations persisted before a restart are loaded. */
  loading: boolean;
  ready: Promise<void>;
  /** The public gate, handed to resume handlers. */
  gate: ConfirmGate | undefined;
}

/** Checks the options and builds the shared context of a new gate. */
export function createContext(options: ConfirmGateOptions): GateContext {
  const clock = options.clock ?? systemClock;
  const prefix = options.keyPrefix ?? 'confirm:';
  const pendingPrefix = `${prefix}pending:`;
  const decisionPrefix = `${prefix}decision:`;
  return {
    bus: options.bus,
    clock,
    store: options.store ?? createMemoryStore({ clock }),
    nextId: options.generateId ?? (() => generateId('cfm_')),
    defaultTimeoutMs: assertTimeoutMs(options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS),
    approvers: checkApprovers(options.approvers ?? 'requester'),
    whenPending: checkChoice(options.whenPending ?? 'queue', ['queue', 'reject', 'supersede'], 'whenPending'),
    unrecognised: checkChoice(options.unrecognised ?? 'cancel', ['cancel', 'reprompt'], 'unrecognised'),
    maxQueued: checkCount(options.maxQueuedPerSession ?? 8, 'maxQueuedPerSession'),
    maxReprompts: checkCount(options.maxReprompts ?? 2, 'maxReprompts'),
    standingMs:
      options.standingAllowanceMs === undefined
        ? undefined
        : assertTimeoutMs(options.standingAllowanceMs, 'standingAllowanceMs'),
    auditTtlMs: assertTimeoutMs(options.auditTtlMs ?? 7 * DAY_MS, 'auditTtlMs'),
    vocabulary: options.vocabulary ?? DEFAULT_VOCABULARY,
    cards: options.cards ?? true,
    texts: { ...DEFAULT_MESSAGES, ...options.messages },
    // Looked up by action name: a null-prototype copy, so "toString" or "constructor" is no handler.
    resume: Object.assign(Object.create(null) as Record<string, ResumeHandler>, options.resume),
    prefix,
    replicaId: options.replicaId,
    keys: {
      pendingPrefix,
      decisionPrefix,
      pending: (id) => `${pendingPrefix}${id}`,
      decision: (id) => `${decisionPrefix}${id}`,
      allow: (entry) =>
        `${prefix}allow:${entry.sessionKey}\u0000${entry.action.name}\u0000${entry.approvers === 'requester' ? entry.requester : '*'}`,
    },
    tokens: createTokenCodec(options.secret),
    events: createEmitter<ConfirmEvents>(
      options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
    ),
    deadlines: createDeadlineQueue({ clock }),
    active: new Map(),
    queued: new Map(),
    byId: new Map(),
    mirrors: new Map(),
    mirrorOf: new Map(),
    recentlySettled: new RecentSet(10_000),
    countedEvents: new RecentSet(10_000),
    closed: false,
    loading: true,
    ready: Promise.resolve(),
    gate: undefined,
  };
}

/** Reports a failure the gate survives (a store write, a notice, a resume handler). */
export function fail(ctx: GateContext, error: unknown, id?: string): void {
  ctx.events.emit('error', id === undefined ? { error } : { error, id });
}

export function mayDecide(entry: Entry, userId: string): boolean {
  const policy = entry.approvers;
  if (policy === 'requester') return userId === entry.requester;
  return policy === 'any' || policy.includes(userId);
}

/** Stops listing an entry as followed from another gate. */
export function forgetMirror(ctx: GateContext, entry: Entry): void {
  if (ctx.mirrors.get(entry.id) !== entry) return;
  ctx.mirrors.delete(entry.id);
  if (ctx.mirrorOf.get(entry.sessionKey) === entry) ctx.mirrorOf.delete(entry.sessionKey);
}

/** Records and decisions are plain JSON by construction (strings, numbers, arrays, objects). */
export function asJson(value: object): JsonValue {
  return value as unknown as JsonValue; // interfaces lack the index signature JsonValue has
}

export function clip(text: string): string {
  return text.slice(0, MAX_REPLY_LENGTH);
}
