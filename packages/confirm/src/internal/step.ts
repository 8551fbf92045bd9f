import type { ConfirmDecision, ConfirmStep } from '../decision.js';
import type { ApproverPolicy, ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type { CARD_REFUSAL_CODES, IGNORED_REPLY_CODES } from '../refusal-codes.js';
import { normalizeExact, normalizeReply, parseReply, type Vocabulary } from '../vocabulary.js';
import type { CardChoice } from './token.js';

// The rules of one pending confirmation, as one pure function: (confirmation, event, now) → what
// to do. It never awaits, reads a clock or touches a store; the gate's runner (lifecycle.ts)
// performs what it returns. Every path that can decide — a reply, a card click, a reply after a
// restart, another replica's confirmation loaded from the store — goes through it, so the order
// of the checks is the same everywhere: the deadline first, then who may answer, then whether
// the prompt was delivered before the answer was written (for a click on the card: whether the
// send of the card succeeded), then what the answer says.

/** What the rules read of a confirmation. */
export interface StepView {
  readonly requester: string;
  readonly approvers: ApproverPolicy;
  readonly steps: readonly ConfirmStep[] | undefined;
  readonly step: number;
  readonly reprompts: number;
  readonly firstPromptedAt: number;
  readonly promptedAt: number;
  readonly deliveredAt: number | undefined;
  readonly expiresAt: number | undefined;
  /** Restored after a restart by this gate (not another replica's) and no resume handler exists. */
  readonly orphaned: boolean;
}

/** The gate settings the rules depend on. */
export interface StepRules {
  readonly vocabulary: Vocabulary;
  readonly unrecognised: 'cancel' | 'reprompt';
  readonly maxReprompts: number;
  readonly standingMs: number | undefined;
  readonly paging: boolean;
}

/** An event that may decide a confirmation. */
export type StepEvent =
  | {
      readonly type: 'reply';
      readonly text: string;
      readonly senderId: string;
      /** The platform's creation stamp (the start of its tick), or the bus arrival time. */
      readonly createdAt: number;
      readonly bot: boolean;
    }
  | {
      readonly type: 'card';
      readonly choice: CardChoice;
      readonly senderId: string;
      readonly sessionKey: string;
      readonly promptSession: string;
      readonly createdAt: number;
      readonly bot: boolean;
    }
  | { readonly type: 'deadline' };

/** Who and what decided, besides outcome and reason. */
export type Extra = Pick<ConfirmDecision, 'decidedBy' | 'reply' | 'failedStep' | 'allowUntil'>;

/** What the runner does with an event. */
export type StepResult =
  /** Not an answer: the message goes on to the agent. */
  | { readonly kind: 'pass'; readonly code?: (typeof IGNORED_REPLY_CODES)[number] }
  /** Consumed, not counted. */
  | { readonly kind: 'ignore'; readonly code: (typeof IGNORED_REPLY_CODES)[number] }
  /** A card click that does not count (consumed). */
  | { readonly kind: 'refuse'; readonly code: (typeof CARD_REFUSAL_CODES)[number] }
  | {
      readonly kind: 'settle';
      readonly outcome: ConfirmOutcome;
      readonly reason: DecisionReason;
      readonly extra?: Extra;
      readonly notice?: 'timedOut' | 'expired';
    }
  /** The deadline has passed: `timed_out`; `consumed` says whether the message was an answer. */
  | { readonly kind: 'expire'; readonly consumed: boolean }
  /** The answer matched a step that is not the last: prompt the next one. */
  | { readonly kind: 'next_step' }
  | { readonly kind: 'reprompt' }
  /** The approver asked for the next page of a shortened summary. */
  | { readonly kind: 'page' };

/** Whether `userId` may answer under a confirmation's approver policy. */
export function mayAnswer(view: Pick<StepView, 'approvers' | 'requester'>, userId: string): boolean {
  const policy = view.approvers;
  if (policy === 'requester') return userId === view.requester;
  return policy === 'any' || policy.includes(userId);
}

/** The words that ask for the next page of a shortened summary (`summaryPaging`). */
const PAGE_WORDS: ReadonlySet<string> = new Set(['more', '更多']);

/** Applies the rules to one event; pure. */
export function step(view: StepView, event: StepEvent, now: number, rules: StepRules): StepResult {
  // 1. The deadline, whatever the timers did: past it nothing but `timed_out` is possible.
  if (view.expiresAt === undefined) {
    return event.type === 'card' ? { kind: 'refuse', code: 'unknown_confirmation' } : { kind: 'pass' };
  }
  if (now >= view.expiresAt) {
    return { kind: 'expire', consumed: event.type !== 'reply' || answerable(view, event) };
  }
  if (event.type === 'deadline') return { kind: 'pass' };
  if (event.type === 'card') return card(view, event, now, rules);
  // 2. Who may answer.
  if (event.bot) return { kind: 'pass', code: 'bot' };
  if (!mayAnswer(view, event.senderId)) return { kind: 'pass', code: 'not_allowed' };
  // 3. Written after the prompt was delivered.
  if (event.createdAt < view.firstPromptedAt) return { kind: 'pass', code: 'stale_reply' };
  if (event.createdAt < view.promptedAt) return { kind: 'ignore', code: 'stale_reply' };
  if (view.deliveredAt === undefined || event.createdAt < view.deliveredAt)
    return { kind: 'ignore', code: 'before_delivery' };
  // 4. What it says.
  if (view.orphaned)
    return {
      kind: 'settle',
      outcome: 'aborted',
      reason: 'expired',
      extra: { decidedBy: event.senderId },
      notice: 'expired',
    };
  const by = { decidedBy: event.senderId };
  if (view.steps !== undefined) {
    const exact = normalizeExact(event.text);
    const expected = (view.steps[view.step] as ConfirmStep).expect; // step < steps.length while pending
    if (exact !== normalizeExact(expected)) {
      return {
        kind: 'settle',
        outcome: 'cancelled',
        reason: 'step_mismatch',
        extra: { ...by, reply: clip(exact), failedStep: view.step + 1 },
      };
    }
    if (view.step + 1 < view.steps.length) return { kind: 'next_step' };
    return { kind: 'settle', outcome: 'confirmed', reason: 'reply', extra: { ...by, reply: clip(exact) } };
  }
  const normal = normalizeReply(event.text);
  if (rules.paging && PAGE_WORDS.has(normal)) return { kind: 'page' };
  const verdict = parseReply(event.text, rules.vocabulary);
  const extra = { ...by, reply: clip(normal) };
  if (verdict === 'unrecognised') {
    if (rules.unrecognised === 'reprompt' && view.reprompts < rules.maxReprompts) return { kind: 'reprompt' };
    return { kind: 'settle', outcome: 'cancelled', reason: 'unrecognised', extra };
  }
  return choose(verdict, 'reply', extra, now, rules);
}

function card(
  view: StepView,
  event: Extract<StepEvent, { type: 'card' }>,
  now: number,
  rules: StepRules,
): StepResult {
  if (event.sessionKey !== event.promptSession) return { kind: 'refuse', code: 'session_mismatch' };
  if (event.bot || !mayAnswer(view, event.senderId)) return { kind: 'refuse', code: 'not_allowed' };
  if (view.steps !== undefined) return { kind: 'refuse', code: 'steps_required' };
  // A click is on the card itself, so it comes after the platform showed the card even when it
  // reaches the bot before the send's answer does (it waited for that answer). Only a click
  // stamped before the send began cannot be on this prompt.
  if (view.deliveredAt === undefined || event.createdAt < view.promptedAt)
    return { kind: 'refuse', code: 'before_delivery' };
  if (view.orphaned)
    return {
      kind: 'settle',
      outcome: 'aborted',
      reason: 'expired',
      extra: { decidedBy: event.senderId },
      notice: 'expired',
    };
  return choose(event.choice, 'card', { decidedBy: event.senderId }, now, rules);
}

function choose(
  verdict: 'confirm' | 'cancel' | 'always',
  reason: 'reply' | 'card',
  extra: Extra,
  now: number,
  rules: StepRules,
): StepResult {
  if (verdict === 'cancel') return { kind: 'settle', outcome: 'cancelled', reason, extra };
  if (verdict === 'always' && rules.standingMs !== undefined) {
    return {
      kind: 'settle',
      outcome: 'confirmed',
      reason,
      extra: { ...extra, allowUntil: now + rules.standingMs },
    };
  }
  return { kind: 'settle', outcome: 'confirmed', reason, extra };
}

/** Whether a reply would be taken as an answer, ignoring the deadline (so it is consumed past it). */
function answerable(view: StepView, event: Extract<StepEvent, { type: 'reply' }>): boolean {
  return !event.bot && mayAnswer(view, event.senderId) && event.createdAt >= view.firstPromptedAt;
}

/** The longest reply kept in a decision. */
const MAX_KEPT_REPLY = 32;

function clip(text: string): string {
  return text.slice(0, MAX_KEPT_REPLY);
}
