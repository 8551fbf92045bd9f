import { isPlatformOrder, type PlatformOrder } from '@parley/bus';
import type { JsonValue, RecordCodec } from '@parley/core';
import { allowanceScope, type StandingAllowance } from '../allowance.js';
import type { ConfirmDecision, ConfirmStep } from '../decision.js';
import type { ConfirmMessages } from '../events.js';
import { type ApproverPolicy, CONFIRM_OUTCOMES, DECISION_REASONS } from '../outcomes.js';

/**
 * The stored part of a {@link Confirmation}: what a gate writes as its `parley.confirm.pending`
 * record (format 2), and what another replica or a restarted gate reads back.
 *
 * @example
 * ```ts
 * import { type ConfirmationRecord, createConfirmation } from '@parley/confirm';
 *
 * const request = { sessionKey: 'slack:T1:C1', action: { name: 'deploy', args: {} }, summary: 'Deploy', requester: 'U1' };
 * const record: ConfirmationRecord = createConfirmation(request, { id: 'c1', now: 0 }).record;
 * console.log(record.action.digest.length, record.timeoutMs); // 64 300000
 * ```
 */
export interface ConfirmationRecord {
  /** Counts the writes of the record: a record is only ever replaced by one with a higher `rev`. */
  readonly rev: number;
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
  /** When the current prompt's send resolved; absent while it is in flight. */
  readonly deliveredAt?: number;
  readonly expiresAt: number;
  /** The replica id of the gate that prompted it (absent when it had none). */
  readonly owner?: string;
  /** The delivered prompt's place in the platform's per-chat order, when its receipt gave one. */
  readonly order?: PlatformOrder;
}

/**
 * Reads a stored pending record strictly: every field must have its type (approvers one of the
 * three policies, steps a list of texts, times finite numbers, the digest 64 hex digits), or the
 * record is `undefined` and the caller reports it and leaves it out of every decision.
 */
export function readPendingRecord(value: JsonValue | undefined): ConfirmationRecord | undefined {
  if (!isObject(value)) return undefined;
  const r = value as Partial<Record<keyof ConfirmationRecord, JsonValue>>;
  const ok =
    isCount(r.rev) &&
    isText(r.id) &&
    isText(r.sessionKey) &&
    isText(r.requester) &&
    typeof r.summary === 'string' &&
    isAction(r.action) &&
    isPolicy(r.approvers) &&
    (r.steps === null || isSteps(r.steps)) &&
    isCount(r.step) &&
    isCount(r.reprompts) &&
    [r.timeoutMs, r.requestedAt, r.firstPromptedAt, r.promptedAt, r.expiresAt].every(isTime) &&
    (r.deliveredAt === undefined || isTime(r.deliveredAt)) &&
    (r.owner === undefined || isText(r.owner)) &&
    (r.order === undefined || isPlatformOrder(r.order));
  if (!ok) return undefined;
  if (r.steps !== null && (r.step as number) >= (r.steps as unknown[]).length) return undefined;
  return value as unknown as ConfirmationRecord; // every field checked above
}

/**
 * A stored decision: the {@link ConfirmDecision} with its single-use mark (`usedAt`, when an
 * authorization consumed it).
 *
 * @example
 * ```ts
 * import type { DecisionRecord } from '@parley/confirm';
 *
 * function decidedBy(record: DecisionRecord): string {
 *   return `${record.outcome} by ${record.decidedBy ?? 'nobody'}${record.usedAt === undefined ? '' : ' (used)'}`;
 * }
 * ```
 */
export interface DecisionRecord extends ConfirmDecision {
  readonly usedAt?: number;
}

/** Reads a stored decision strictly; anything else is `undefined` (and never authorises). */
export function readDecisionRecord(value: JsonValue | undefined): DecisionRecord | undefined {
  if (!isObject(value)) return undefined;
  const r = value as Partial<Record<keyof DecisionRecord, JsonValue>>;
  const ok =
    isText(r.id) &&
    isText(r.sessionKey) &&
    isText(r.requester) &&
    typeof r.summary === 'string' &&
    typeof r.outcome === 'string' &&
    (CONFIRM_OUTCOMES as readonly string[]).includes(r.outcome) &&
    typeof r.reason === 'string' &&
    (DECISION_REASONS as readonly string[]).includes(r.reason) &&
    isAction(r.action) &&
    isTime(r.requestedAt) &&
    isTime(r.decidedAt) &&
    [r.promptedAt, r.expiresAt, r.usedAt, r.allowUntil, r.failedStep].every(
      (n) => n === undefined || isTime(n),
    ) &&
    [r.decidedBy, r.reply].every((t) => t === undefined || typeof t === 'string');
  return ok ? (value as unknown as DecisionRecord) : undefined; // every field checked above
}

export function toDecision(record: DecisionRecord): ConfirmDecision {
  const { usedAt: _, ...decision } = record;
  return decision;
}

/**
 * The stored formats, as kernel records: format 2 is the kernel's envelope around the plain JSON
 * above; format 1 (the bare JSON of earlier releases) is refused as `record_version`, never
 * overwritten.
 */
export const RECORD_FORMAT = 2;

export const PENDING_CODEC: RecordCodec<ConfirmationRecord> = {
  kind: 'parley.confirm.pending',
  version: RECORD_FORMAT,
  decode: (data) => readPendingRecord(data as JsonValue),
  encode: (record) => record as unknown as JsonValue, // plain JSON by construction
};

export const DECISION_CODEC: RecordCodec<DecisionRecord> = {
  kind: 'parley.confirm.decision',
  version: RECORD_FORMAT,
  decode: (data) => readDecisionRecord(data as JsonValue),
  encode: (record) => record as unknown as JsonValue, // plain JSON by construction
};

/** A standing allowance as stored (`parley.confirm.allow`). */
export type GrantRecord = StandingAllowance;

export const GRANT_CODEC: RecordCodec<GrantRecord> = {
  kind: 'parley.confirm.allow',
  version: RECORD_FORMAT,
  decode: (data) => {
    const r = data as Partial<Record<keyof GrantRecord, JsonValue>>;
    return isObject(data as JsonValue) && isText(r.grantedBy) && isTime(r.grantedAt)
      ? (data as unknown as GrantRecord) // the fields an allowance is judged by, checked
      : undefined;
  },
  encode: (record) => record as unknown as JsonValue, // plain JSON by construction
};

/** A record in the bare JSON format 1 (before the kernel envelope): an object with no `kind`. */
export function isFormatOne(value: JsonValue | undefined): boolean {
  return (
    isObject(value) && !('kind' in value) && ('v' in value || 'outcome' in value || 'grantedBy' in value)
  );
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
  tooEarly: (summary) =>
    `您的回复早于确认提示送达，未被计入，请再次回复：${summary}\n` +
    'Your answer arrived too early (before the prompt was delivered) and did not count; please answer again.',
  late: (summary, outcome) =>
    outcome === 'confirmed'
      ? `该操作已确认，无需再次回复：${summary}\nThis action was already confirmed.`
      : outcome === 'timed_out'
        ? `该确认已过期：${summary}\nThis confirmation has expired; your answer did not count.`
        : `该操作已取消：${summary}\nThis action was already cancelled; your answer did not count.`,
};

function isObject(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && value !== '';
}

function isTime(value: JsonValue | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isCount(value: JsonValue | undefined): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isPolicy(value: JsonValue | undefined): boolean {
  if (value === 'requester' || value === 'any') return true;
  return Array.isArray(value) && value.length > 0 && value.every(isText);
}

function isSteps(value: JsonValue | undefined): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((step) => isObject(step) && isText(step.prompt) && isText(step.expect))
  );
}

function isAction(value: JsonValue | undefined): boolean {
  return (
    isObject(value) &&
    isText(value.name) &&
    value.args !== undefined &&
    typeof value.digest === 'string' &&
    /^[0-9a-f]{64}$/.test(value.digest)
  );
}

/** Store keys of one gate, under its prefix. */
export interface Keys {
  readonly pendingPrefix: string;
  readonly decisionPrefix: string;
  pending(id: string): string;
  decision(id: string): string;
  /** The standing allowance that would cover a confirmation: its session, action and approver policy. */
  allow(record: ConfirmationRecord): string;
}

/** The store keys of one gate, under its prefix. */
export function keysOf(prefix: string): Keys {
  const pendingPrefix = `${prefix}pending:`;
  const decisionPrefix = `${prefix}decision:`;
  return {
    pendingPrefix,
    decisionPrefix,
    pending: (id) => `${pendingPrefix}${id}`,
    decision: (id) => `${decisionPrefix}${id}`,
    allow: (record) => `${prefix}allow:${allowanceScope(record)}`,
  };
}
