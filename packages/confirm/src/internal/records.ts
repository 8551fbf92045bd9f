import type { SessionAddress } from '@parley/bus';
import type { JsonValue } from '@parley/core';
import type { ApproverPolicy, ConfirmDecision, ConfirmMessages, ConfirmStep } from '../types.js';

/** A confirmation being handled by this gate. */
export interface Entry {
  readonly id: string;
  readonly sessionKey: string;
  readonly address: SessionAddress;
  readonly action: ConfirmDecision['action'];
  readonly summary: string;
  readonly requester: string;
  readonly approvers: ApproverPolicy;
  readonly steps: readonly ConfirmStep[] | undefined;
  readonly timeoutMs: number;
  readonly requestedAt: number;
  /** Loaded from the store (after a restart, or another replica's for a card click). */
  readonly restored: boolean;
  /** Another live replica owns it: no resume handler, no notices here. */
  readonly remote: boolean;
  /** The replica id of the gate that prompted it, if it had one. */
  readonly owner: string | undefined;
  state: 'new' | 'queued' | 'prompted';
  step: number;
  reprompts: number;
  firstPromptedAt: number;
  promptedAt: number;
  expiresAt: number | undefined;
  done: boolean;
  /** Store writes of this entry, in order. */
  io: Promise<unknown>;
  /** The version of its pending record this gate last wrote or read. */
  version?: number | undefined;
  deadline?: import('@parley/core').DeadlineHandle | undefined;
  signal?: AbortSignal | undefined;
  onAbort?: (() => void) | undefined;
  resolve?: ((decision: ConfirmDecision) => void) | undefined;
}

/** How a prompted entry is persisted (plain JSON). */
export interface PendingRecord {
  readonly v: 1;
  readonly id: string;
  readonly sessionKey: string;
  readonly action: ConfirmDecision['action'];
  readonly summary: string;
  readonly requester: string;
  readonly approvers: ApproverPolicy;
  readonly steps: readonly ConfirmStep[] | null;
  readonly step: number;
  readonly reprompts: number;
  readonly timeoutMs: number;
  readonly requestedAt: number;
  readonly firstPromptedAt: number;
  readonly promptedAt: number;
  readonly expiresAt: number;
  /** The replica id of the gate that prompted it (absent when it had none). */
  readonly owner?: string;
}

export function toPendingRecord(entry: Entry): PendingRecord {
  const record: PendingRecord = {
    v: 1,
    id: entry.id,
    sessionKey: entry.sessionKey,
    action: entry.action,
    summary: entry.summary,
    requester: entry.requester,
    approvers: entry.approvers,
    steps: entry.steps ?? null,
    step: entry.step,
    reprompts: entry.reprompts,
    timeoutMs: entry.timeoutMs,
    requestedAt: entry.requestedAt,
    firstPromptedAt: entry.firstPromptedAt,
    promptedAt: entry.promptedAt,
    expiresAt: entry.expiresAt as number, // only prompted entries are persisted, and they have one
  };
  return entry.owner === undefined ? record : { ...record, owner: entry.owner };
}

/** Reads a stored pending record; anything unexpected is skipped rather than trusted. */
export function readPendingRecord(value: JsonValue | undefined): PendingRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Partial<Record<keyof PendingRecord, unknown>>;
  if (record.v !== 1 || typeof record.id !== 'string' || typeof record.sessionKey !== 'string')
    return undefined;
  if (typeof record.expiresAt !== 'number' || typeof record.requester !== 'string') return undefined;
  return value as unknown as PendingRecord; // written by toPendingRecord through the same store
}

/** A stored decision with its single-use mark. */
export interface DecisionRecord extends ConfirmDecision {
  readonly usedAt?: number;
}

export function readDecisionRecord(value: JsonValue | undefined): DecisionRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Partial<Record<keyof DecisionRecord, unknown>>;
  if (typeof record.id !== 'string' || typeof record.outcome !== 'string') return undefined;
  return value as unknown as DecisionRecord; // written by the gate through the same store
}

export function toDecision(record: DecisionRecord): ConfirmDecision {
  const { usedAt: _, ...decision } = record;
  return decision;
}

export const DEFAULT_MESSAGES: ConfirmMessages = {
  prompt: (summary, allowAlways) =>
    `以下操作需要确认：${summary}\n回复「确认」执行，「取消」取消${allowAlways ? '，「总是允许」本会话内不再询问' : ''}。\n` +
    `Reply "confirm" to run it or "cancel" to cancel${allowAlways ? ', or "always allow"' : ''}.`,
  reprompt: (summary, attemptsLeft) =>
    `未能识别回复。请回复「确认」或「取消」（还可尝试 ${attemptsLeft} 次）：${summary}\n` +
    `Not understood. Reply "confirm" or "cancel" (${attemptsLeft} attempt(s) left).`,
  timedOut: (summary) =>
    `确认已超时，操作已取消：${summary}\nThe confirmation timed out; the action was cancelled.`,
  expired: (summary) =>
    `该操作已过期，请重新发起：${summary}\nThis action has expired; please start it again.`,
};

export const MAX_SUMMARY_LENGTH = 500;
