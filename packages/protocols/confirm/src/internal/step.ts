import { comparePlatformOrder, isPlatformOrder, type PlatformOrder } from '@parley/bus';
import type { ConfirmStep } from '../decision.js';
import type { ApproverPolicy } from '../outcomes.js';
import { normalizeExact, normalizeReply, verdictOf } from '../vocabulary.js';
import { mayAnswer } from './approvers.js';
import type {
  AnswerRules,
  Confirmation,
  ConfirmationAnswer,
  ConfirmationVerdict,
  DecisionDetails,
} from './confirmation.js';

// The rules of one pending confirmation, as one pure function: (confirmation, event) → what to
// do. It never awaits, reads a clock or touches a store; the confirm step (machine.ts) calls it and
// the gate's runner (runner.ts) performs what the step returns. Every path that can decide — a reply, a card click, a reply after a restart,
// another replica's confirmation loaded from the store — goes through it, so the order of the
// checks is the same everywhere: the deadline first, then who may answer, then the order rule
// (whether the answer came after the prompt), then what the answer says.
//
// The order rule is decided by the order the gate saw events in (arrival numbers the runner
// gives each message and each send it starts) and by the platform's own per-chat order, never by
// comparing two clocks:
// 1. an answer that reached the gate before the prompt's send began never counts for it;
// 2. one that arrived while the send was in flight counts only when the platform's order puts it
//    after the prompt (decided when the receipt arrives); without an order it does not count and
//    the person is told at once that it came too early;
// 3. one that arrived after the send resolved counts, unless the platform's order puts it before
//    (or level with) the prompt.

/** What the rules read of a confirmation. */
export interface StepView {
  readonly requester: string;
  readonly approvers: ApproverPolicy;
  readonly steps: readonly ConfirmStep[] | undefined;
  readonly step: number;
  readonly reprompts: number;
  /** Arrival number at which the current prompt's send began; `undefined` before it began. */
  readonly sentSeq: number | undefined;
  /** Arrival number at which the current prompt was known delivered; `undefined` while in flight. */
  readonly deliveredSeq: number | undefined;
  /** The current prompt's place in the platform's per-chat order, from its send receipt. */
  readonly order: PlatformOrder | undefined;
  /** Prompted (or followed) and so answerable at all. */
  readonly prompted: boolean;
  /** The answering window is over (the runner's reading: elapsed time here, the stored deadline after a restart). */
  readonly expired: boolean;
  /** Restored after a restart by this gate (not another replica's) and no resume handler exists. */
  readonly orphaned: boolean;
}

export { mayAnswer } from './approvers.js';

/** What the rules read of a confirmation. */
export function viewOf(c: Confirmation): StepView {
  return {
    requester: c.record.requester,
    approvers: c.record.approvers,
    steps: c.record.steps ?? undefined,
    step: c.record.step,
    reprompts: c.record.reprompts,
    sentSeq: c.sentSeq ?? undefined,
    deliveredSeq: c.deliveredSeq ?? undefined,
    order: c.record.order,
    prompted: c.state === 'prompted',
    expired: c.windowOver,
    orphaned: c.restored && !c.remote && !c.resumable,
  };
}

/** The words that ask for the next page of a shortened summary (`summaryPaging`). */
const PAGE_WORDS: ReadonlySet<string> = new Set(['more', '更多']);

/** Applies the rules to one event; pure. */
export function step(
  view: StepView,
  event: ConfirmationAnswer,
  now: number,
  rules: AnswerRules,
): ConfirmationVerdict {
  // 1. The deadline, whatever the timers did: past it nothing but `timed_out` is possible.
  if (!view.prompted) {
    return event.type === 'card' ? { kind: 'refuse', code: 'unknown_confirmation' } : { kind: 'pass' };
  }
  if (view.expired) {
    return { kind: 'expire', consumed: event.type !== 'reply' || answerable(view, event) };
  }
  if (event.type === 'deadline') return { kind: 'pass' };
  if (event.type === 'card') return card(view, event, now, rules);
  // 2. Who may answer.
  if (event.bot) return { kind: 'pass', code: 'bot' };
  if (!mayAnswer(view, event.senderId)) return { kind: 'pass', code: 'not_allowed' };
  // 3. The order rule.
  const order = orderRule(view, event);
  if (order !== undefined) return order;
  // 4. What it says.
  if (view.orphaned)
    return {
      kind: 'settle',
      outcome: 'aborted',
      reason: 'expired',
      extra: { decidedBy: event.senderId },
      notice: 'expired',
    };
  // Built field by field: a literal that spreads another object and then adds a field gets a new
  // hidden class almost every time on Node 20's V8, so every reader of it goes megamorphic.
  const decidedBy = event.senderId;
  if (view.steps !== undefined) {
    const exact = normalizeExact(event.text);
    const expected = (view.steps[view.step] as ConfirmStep).expect; // step < steps.length while pending
    if (exact !== normalizeExact(expected)) {
      return {
        kind: 'settle',
        outcome: 'cancelled',
        reason: 'step_mismatch',
        extra: { decidedBy, reply: clip(exact), failedStep: view.step + 1 },
      };
    }
    if (view.step + 1 < view.steps.length) return { kind: 'next_step' };
    return {
      kind: 'settle',
      outcome: 'confirmed',
      reason: 'reply',
      extra: { decidedBy, reply: clip(exact) },
    };
  }
  const normal = normalizeReply(event.text);
  if (rules.paging && PAGE_WORDS.has(normal)) return { kind: 'page' };
  const verdict = verdictOf(normal, rules.vocabulary);
  const extra = { decidedBy, reply: clip(normal) };
  if (verdict === 'unrecognised') {
    if (rules.unrecognised === 'reprompt' && view.reprompts < rules.maxReprompts) return { kind: 'reprompt' };
    return { kind: 'settle', outcome: 'cancelled', reason: 'unrecognised', extra };
  }
  return choose(verdict, 'reply', extra, now, rules);
}

function card(
  view: StepView,
  event: Extract<ConfirmationAnswer, { type: 'card' }>,
  now: number,
  rules: AnswerRules,
): ConfirmationVerdict {
  if (event.sessionKey !== event.promptSession) return { kind: 'refuse', code: 'session_mismatch' };
  if (event.bot || !mayAnswer(view, event.senderId)) return { kind: 'refuse', code: 'not_allowed' };
  if (view.steps !== undefined) return { kind: 'refuse', code: 'steps_required' };
  // A click is on the card itself, so it comes after the platform showed the card even when it
  // reaches the bot before the send's answer does (the runner holds it for that answer). Only a
  // click that reached the gate before the card's send began cannot be on this prompt.
  if (view.sentSeq === undefined || event.arrival < view.sentSeq || view.deliveredSeq === undefined)
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
  extra: DecisionDetails,
  now: number,
  rules: AnswerRules,
): ConfirmationVerdict {
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

/**
 * The order rule for a text reply (see the top of this file): a result when the reply does not
 * count (or must wait for the receipt), `undefined` when it counts.
 */
function orderRule(
  view: StepView,
  event: Extract<ConfirmationAnswer, { type: 'reply' }>,
): ConfirmationVerdict | undefined {
  if (view.sentSeq === undefined || event.arrival < view.sentSeq)
    return event.lateChecked === true
      ? { kind: 'ignore', code: 'before_delivery', tooEarly: true }
      : { kind: 'before_send' };
  const compared = comparePlatformOrder(event.order, view.order);
  if (view.deliveredSeq === undefined || event.arrival < view.deliveredSeq) {
    // It arrived while the send was in flight.
    if (view.deliveredSeq === undefined)
      return isPlatformOrder(event.order) && event.full !== true
        ? { kind: 'hold' }
        : { kind: 'ignore', code: 'before_delivery', tooEarly: true };
    if (compared === 'after') return undefined;
    return compared === 'unknown'
      ? { kind: 'ignore', code: 'before_delivery', tooEarly: true }
      : { kind: 'ignore', code: 'before_delivery' };
  }
  // It arrived after the send resolved: it counts unless the platform placed it before the prompt.
  return compared === 'before' || compared === 'same' ? { kind: 'ignore', code: 'stale_reply' } : undefined;
}

/** Whether a reply would be taken as an answer, ignoring the deadline (so it is consumed past it). */
function answerable(view: StepView, event: Extract<ConfirmationAnswer, { type: 'reply' }>): boolean {
  return !event.bot && mayAnswer(view, event.senderId);
}

/** The longest reply kept in a decision. */
const MAX_KEPT_REPLY = 32;

function clip(text: string): string {
  return text.slice(0, MAX_KEPT_REPLY);
}
